import json

from django.core.management.base import BaseCommand, CommandError

from readership import figures
from readership.folding import fold


class Command(BaseCommand):
    help = (
        "Fold the page views still waiting, then print the most read articles and the top "
        "sources of the last N days."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=7, help="the period, in days (7)")
        parser.add_argument("--limit", type=int, default=20, help="articles and sources (20)")
        parser.add_argument("--json", action="store_true", help="print JSON, for scripts")

    def handle(self, *args, days, limit, **options):
        if days < 1 or limit < 1:
            raise CommandError("--days and --limit must be 1 or more.")
        fold()
        articles = [
            {
                "path": article.get_absolute_url(),
                "title": article.title,
                "views": views,
                "visitors": visitors,
            }
            for article, views, visitors in figures.most_read(days, limit)
        ]
        sources = [
            {"source": source, "views": views} for source, views in figures.top_sources(days, limit)
        ]
        if options["json"]:
            data = {"days": days, "articles": articles, "sources": sources}
            self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False))
            return
        self.stdout.write(f"Most read, last {days} day(s):")
        if not articles:
            self.stdout.write("  no views counted")
        for row in articles:
            self.stdout.write(
                f"  {row['views']:>8} views {row['visitors']:>8} visitors  {row['title']}"
                f"  {row['path']}"
            )
        self.stdout.write("Top sources:")
        for row in sources:
            self.stdout.write(f"  {row['views']:>8} views  {row['source']}")
