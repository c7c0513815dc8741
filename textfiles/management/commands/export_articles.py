from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from news.models import Article
from textfiles.textformat import ExportError, format_article


class Command(BaseCommand):
    help = (
        "Write articles in the plain-text format: one slug to standard output, or every "
        "article (drafts and scheduled ones included) into a folder, one <slug>.txt each. "
        "Each is written so that importing it gives the same article back; --full adds "
        "the header lines of the whole-site backup (slug, old slugs, status, published and "
        "updated times, summary, id)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="The article to print.")
        parser.add_argument("--output", "-o", metavar="FOLDER", help="Write every article here.")
        parser.add_argument(
            "--full", action="store_true", help="Add every field the format can hold."
        )

    def handle(self, *args, slug, output, full, **options):
        if bool(slug) == bool(output):
            raise CommandError("Give either a slug or --output FOLDER.")
        articles = Article.objects.select_related("lead_image", "social_image").prefetch_related(
            "sources",
            "related_links__target",
            "tags",
            "retired_slugs",
            "authorships__author",
            "corrections",
        )
        if slug:
            article = articles.filter(slug=slug).first()
            if article is None:
                raise CommandError(f"No article with the slug {slug!r}.")
            try:
                self.stdout.write(format_article(article, full=full), ending="")
            except ExportError as error:
                raise CommandError(f"{slug}: {error}") from None
            return
        folder = Path(output)
        folder.mkdir(parents=True, exist_ok=True)
        count, problems = 0, []
        for article in articles.order_by("slug").iterator(chunk_size=500):
            try:
                text = format_article(article, full=full)
            except ExportError as error:
                problems.append(f"{article.slug}: {error}")
                continue
            (folder / f"{article.slug}.txt").write_text(text, encoding="utf-8", newline="\n")
            count += 1
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(
                f"Wrote {count} article(s) to {folder}; {len(problems)} could not be written "
                "exactly and were left out."
            )
        self.stdout.write(self.style.SUCCESS(f"Wrote {count} article(s) to {folder}."))
