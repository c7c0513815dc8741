from django.core.management.base import BaseCommand

from news.dependencies import ARTICLE, FEEDS
from news.models import Article
from news.rendering import html_to_text, render_markdown
from pagecache import purges


class Command(BaseCommand):
    help = (
        "Render every article's stored HTML again with the current renderer (after an "
        "upgrade that changes it, e.g. code highlighting), and purge the pages of those "
        "that changed. Safe to repeat; changes no revision and no version."
    )

    def handle(self, *args, **options):
        changed = []
        for pk, body, stored in Article.objects.values_list("pk", "body", "body_html").iterator():
            html = render_markdown(body)
            if html != stored:
                # update(): no save signals, no new version; the pages are purged below.
                Article.objects.filter(pk=pk).update(body_html=html, body_text=html_to_text(html))
                changed.append(pk)
        if changed:
            purges.purge({*ARTICLE.each(changed), FEEDS()})
        self.stdout.write(self.style.SUCCESS(f"Rendered {len(changed)} article(s) anew."))
