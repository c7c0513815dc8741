from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.base import ContentFile
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from images.illustrations import illustration
from images.models import Image, Licence
from images.tasks import make_renditions
from images.uploads import check_upload
from live.textformat import import_folder as import_live_folder
from maintenance import statistics
from news import purge
from news.models import Article, ArticleAuthor, FrontPin
from people.models import Author, AuthorLink
from textfiles.importer import import_articles
from textfiles.signals import demo_loaded

DEMO_CONTENT = Path(__file__).resolve().parents[2] / "demo_content"
# Local demo accounts, one per editorial role: (username, password, group, superuser).
DEMO_ACCOUNTS = [
    ("writer", "writer", "Writers", False),
    ("editor", "editor", "Editors", False),
    ("admin", "admin", "Admins", True),
]
# The shared article has no Tags line (its round trip must stay byte for byte); an editor
# tags it after the import, as here.
SHARED_ARTICLE_TAGS = {
    "pytorch-2-4-released-python-3-12-and-a-custom-operator-api": [
        "Machine learning", "Python", "PyTorch", "Release",
    ],
}  # fmt: skip
# Made-up authors, so that bylines and author pages have something to show; each writes
# as a demo account. (slug, name, role, account, bio)
DEMO_AUTHORS = [
    (
        "skillo-demo-writer", "Skillo demo writer", "Demo staff writer", "writer",
        "A made-up writer for Skillo's demo content, not a real person: this profile shows "
        "how bylines and author pages look. Log in as writer / writer to write as them.",
    ),
    (
        "skillo-demo-editor", "Skillo demo editor", "Demo editor", "editor",
        "A made-up editor for Skillo's demo content, not a real person. Log in as "
        "editor / editor to publish as them.",
    ),
]  # fmt: skip
# Demo bylines by the start of the article's slug, authors in byline order. The files hold
# no Authors line (the shared article must export byte for byte); articles left out (the
# PyTorch ones, among them the shared one) are signed "Skillo editorial".
DEMO_BYLINES = {
    "django-5-0": ["skillo-demo-writer"],
    "django-5-1": ["skillo-demo-writer"],
    "django-5-2": ["skillo-demo-writer"],
    "python-3-12": ["skillo-demo-writer"],
    "python-3-13": ["skillo-demo-writer"],
    "postgresql-16": ["skillo-demo-editor"],
    "postgresql-17": ["skillo-demo-editor"],
    "linux-6-1": ["skillo-demo-editor"],
    "go-1-22": ["skillo-demo-editor", "skillo-demo-writer"],
    "node-js-22": ["skillo-demo-writer", "skillo-demo-editor"],
}


class Command(BaseCommand):
    help = (
        "Load the demo articles (one draft and one scheduled among them) and two demo "
        "authors, unless the database already has articles, and a local account per "
        "editorial role."
    )

    @transaction.atomic
    def handle(self, *args, **options):
        # Accounts first: the demo authors write as them.
        self.create_accounts()
        if Article.objects.exists():
            self.stdout.write("The database already has articles; demo content not loaded.")
        else:
            # A history, not news: published long ago, so no newsletter, webhook or
            # fediverse post announces each story today (the newsletters app gives the
            # demo its archive of sent issues).
            with purge.restoring():
                result = import_articles([DEMO_CONTENT])
            for slug, tags in SHARED_ARTICLE_TAGS.items():
                Article.objects.get(slug=slug).tags.add(*tags)
            for article in import_articles([DEMO_CONTENT / "draft"]).created:
                article.status = Article.Status.DRAFT
                article.save()
            for article in import_articles([DEMO_CONTENT / "scheduled"]).created:
                article.published_at = timezone.now().replace(microsecond=0) + timedelta(days=3)
                article.save()
            illustrated = self.illustrate()
            self.choose_front_page()
            self.add_authors()
            # One ended live story (its entries are signed by the demo authors).
            import_live_folder(DEMO_CONTENT / "live")
            demo_loaded.send(sender=self.__class__)
            statistics.refresh()
            self.stdout.write(
                self.style.SUCCESS(
                    f"Loaded {len(result.created)} published articles, one draft and one "
                    f"scheduled; {illustrated} have a lead image; {len(DEMO_AUTHORS)} demo "
                    "authors."
                )
            )

    def add_authors(self):
        User = get_user_model()
        authors = {}
        for slug, name, role, username, bio in DEMO_AUTHORS:
            author = Author.objects.create(
                slug=slug,
                name=name,
                role=role,
                bio=bio,
                user=User.objects.filter(username=username).first(),
            )
            AuthorLink.objects.create(
                author=author, label="Demo profile", url=f"https://example.org/{slug}"
            )
            authors[slug] = author
        for start, slugs in DEMO_BYLINES.items():
            article = Article.objects.get(slug__startswith=start)
            for position, slug in enumerate(slugs):
                ArticleAuthor.objects.create(
                    article=article, author=authors[slug], position=position
                )

    def create_accounts(self):
        User = get_user_model()
        for username, password, group, superuser in DEMO_ACCOUNTS:
            if User.objects.filter(username=username).exists():
                continue
            user = User.objects.create_user(
                username, f"{username}@example.com", password, is_staff=True,
                is_superuser=superuser,
            )  # fmt: skip
            user.groups.add(Group.objects.get(name=group))
            self.stdout.write(
                self.style.SUCCESS(f"Created the local {group} account {username!r}.")
            )

    def choose_front_page(self):
        """As an editor would: the newest illustrated article leads, two others are
        pinned as features, so `make run` shows the edited home page."""
        published = Article.objects.published().order_by("-published_at")
        lead = published.filter(lead_image__isnull=False).first()
        FrontPin.objects.create(article=lead, lead=True)
        for position, article in enumerate(published.exclude(pk=lead.pk)[2:4]):
            FrontPin.objects.create(article=article, position=position)

    def illustrate(self):
        """Every other published article gets a drawn illustration as its lead image, so
        the demo shows both lead images and the cards drawn for articles without one."""
        # Not the shared article: exported from the demo site it stays byte-equal.
        candidates = Article.objects.published().exclude(slug__in=SHARED_ARTICLE_TAGS)
        articles = list(candidates.order_by("slug"))[::2]
        for article in articles:
            file = ContentFile(illustration(article.slug), name=f"{article.slug}.jpg")
            image = Image(
                decorative=True,  # abstract: it tells the reader nothing the text does not
                caption="",
                credit="Illustration: Skillo (drawn for the demo content)",
                licence=Licence.OWN,
                focal_x=0.35,
            )
            image.take(file, check_upload(file))
            image.save()
            # Here, not by the worker: the demo shows its pictures from the first page.
            make_renditions.call(image.pk)
            article.lead_image = image
            article.save()
        return len(articles)
