from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from news.models import Article
from news.textformat import format_article


class Command(BaseCommand):
    help = (
        "Write articles in the plain-text format: one slug to standard output, or every "
        "article (drafts and scheduled ones included) into a folder, one <slug>.txt each."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="The article to print.")
        parser.add_argument("--output", "-o", metavar="FOLDER", help="Write every article here.")

    def handle(self, *args, slug, output, **options):
        if bool(slug) == bool(output):
            raise CommandError("Give either a slug or --output FOLDER.")
        articles = Article.objects.prefetch_related("sources", "related_links__target", "tags")
        if slug:
            article = articles.filter(slug=slug).first()
            if article is None:
                raise CommandError(f"No article with the slug {slug!r}.")
            self.stdout.write(format_article(article), ending="")
            return
        folder = Path(output)
        folder.mkdir(parents=True, exist_ok=True)
        count = 0
        for article in articles.order_by("slug"):
            (folder / f"{article.slug}.txt").write_text(format_article(article), encoding="utf-8")
            count += 1
        self.stdout.write(self.style.SUCCESS(f"Wrote {count} article(s) to {folder}."))
