from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from news.importer import import_articles
from news.models import Article

DEMO_CONTENT = Path(__file__).resolve().parents[2] / "demo_content"
DEMO_ADMIN = ("admin", "admin")
# The shared article has no Tags line (its round trip must stay byte for byte); an editor
# tags it after the import, as here.
SHARED_ARTICLE_TAGS = {
    "pytorch-2-4-released-python-3-12-and-a-custom-operator-api": [
        "machine-learning", "python", "pytorch", "release",
    ],
}  # fmt: skip


class Command(BaseCommand):
    help = (
        "Load the demo articles (one draft and one scheduled among them) and a local admin "
        "account, unless the database already has articles."
    )

    @transaction.atomic
    def handle(self, *args, **options):
        if Article.objects.exists():
            self.stdout.write("The database already has articles; demo content not loaded.")
        else:
            result = import_articles([DEMO_CONTENT])
            for slug, tags in SHARED_ARTICLE_TAGS.items():
                Article.objects.get(slug=slug).tags.add(*tags)
            for article in import_articles([DEMO_CONTENT / "draft"]).created:
                article.status = Article.Status.DRAFT
                article.save()
            for article in import_articles([DEMO_CONTENT / "scheduled"]).created:
                article.published_at = timezone.now().replace(microsecond=0) + timedelta(days=3)
                article.save()
            self.stdout.write(
                self.style.SUCCESS(
                    f"Loaded {len(result.created)} published articles, one draft and one scheduled."
                )
            )
        username, password = DEMO_ADMIN
        User = get_user_model()
        if not User.objects.filter(username=username).exists():
            User.objects.create_superuser(username, "admin@example.com", password)
            self.stdout.write(self.style.SUCCESS(f"Created the local admin account {username!r}."))
