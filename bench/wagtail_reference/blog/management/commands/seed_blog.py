"""Seed the reference site: a home page with a blog index and two standard pages in its
menu, the footer's snippets and settings, authors, and N blog posts with bodies of a
few thousand characters, 3 tags and 1-2 authors each.

    python manage.py seed_blog [--posts 1000] [--tags 500] [--authors 40]

Pages are added the way an editor's publish adds them (treebeard's add_child, which
also fills the search index), so their tree paths, URL paths and index rows are real.
"""

import datetime
import random

from base.models import FooterText, GenericSettings, Person, StandardPage
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from wagtail.models import Page, Site

from blog.models import BlogIndexPage, BlogPage, BlogPersonRelationship

# The words of the seeded text, names and titles.
VOCABULARY = (
    "flour water salt yeast levain crumb crust proof oven bake knead fold shape score "
    "rye spelt wheat starter hydration gluten dough loaf boule batard baguette ferment "
    "temperature morning evening bakery recipe method texture flavour aroma steam stone "
    "tin basket rise overnight autolyse sourdough enriched butter milk sugar seeds oats"
)
NAMES = "Ada Ben Chloe Dev Emma Farid Greta Hugo Ines Jonas Kira Liam Mia Noor Otto"
SURNAMES = "Archer Baker Cole Diaz Evans Fischer Gray Hart Ito Jensen Kovac Lund Moss"
WORDS, FIRST_NAMES, LAST_NAMES = (text.split() for text in (VOCABULARY, NAMES, SURNAMES))


def sentence(rng, words=(8, 18)):
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(*words)))
    return text[0].upper() + text[1:] + "."


def paragraph(rng, sentences=(4, 7)):
    return " ".join(sentence(rng) for _ in range(rng.randint(*sentences)))


def rich_paragraph(rng):
    """A paragraph of rich text with some inline markup, as an editor would write it."""
    first, second = paragraph(rng), paragraph(rng)
    emphasis = " ".join(rng.choice(WORDS) for _ in range(3))
    return f"<p>{first} <b>{emphasis}</b> {second}</p>"


def body(rng):
    """A StreamField body of 3,500-5,000 characters of text: headings, paragraphs, a quote."""
    blocks = []
    for section in range(2):
        heading = " ".join(rng.choice(WORDS) for _ in range(4)).capitalize()
        blocks.append(("heading_block", {"heading_text": heading, "size": "h2"}))
        blocks += [("paragraph_block", rich_paragraph(rng)) for _ in range(2)]
        if section == 0:
            quote = {"text": sentence(rng), "attribute_name": rng.choice(FIRST_NAMES)}
            blocks.append(("block_quote", quote))
    return blocks


class Command(BaseCommand):
    help = "Seed the Wagtail reference site with blog posts."

    def add_arguments(self, parser):
        parser.add_argument("--posts", type=int, default=1000)
        parser.add_argument("--tags", type=int, default=500)
        parser.add_argument("--authors", type=int, default=40)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, posts, tags, authors, seed, **options):
        if BlogPage.objects.exists():
            raise CommandError("The database already has blog posts: seed a fresh one.")
        rng = random.Random(seed)
        with transaction.atomic():
            home = self.site_pages()
            index = home.add_child(
                instance=BlogIndexPage(
                    title="Blog",
                    slug="blog",
                    introduction="News and recipes from the bakery.",
                    show_in_menus=True,
                )
            )
            people = self.people(rng, authors)
        tag_names = [f"{rng.choice(WORDS)}-{n}" for n in range(tags)]
        first_day = datetime.date(2020, 1, 1)
        # One transaction per 100 posts: fast, without one huge transaction.
        for start in range(0, posts, 100):
            with transaction.atomic():
                for n in range(start, min(posts, start + 100)):
                    self.post(index, rng, n, first_day, tag_names, people)
            self.stderr.write(f"  {min(posts, start + 100)} posts")

    def site_pages(self):
        """The site root: Wagtail's initial welcome page, with its standard pages."""
        site = Site.objects.get(is_default_site=True)
        site.hostname, site.port = "127.0.0.1", 80
        site.save()
        home = Page.objects.get(pk=site.root_page_id)
        home.title = "Home"
        home.save()
        for title in ("About", "Contact"):
            home.add_child(
                instance=StandardPage(
                    title=title, introduction=f"{title} the bakery.", show_in_menus=True
                )
            )
        FooterText.objects.create(body="<p>Made with Wagtail.</p>", live=True)
        GenericSettings.objects.create(
            github_url="https://github.com/wagtail/bakerydemo",
            organisation_url="https://wagtail.org/",
        )
        return home

    def people(self, rng, count):
        return [
            Person.objects.create(
                first_name=rng.choice(FIRST_NAMES),
                last_name=rng.choice(LAST_NAMES),
                job_title="Baker",
                live=True,
            )
            for _ in range(count)
        ]

    def post(self, index, rng, n, first_day, tag_names, people):
        authors = rng.sample(people, rng.randint(1, 2))
        page = BlogPage(
            title=sentence(rng, (4, 8)).rstrip("."),
            slug=f"post-{n + 1}",
            subtitle=sentence(rng, (5, 9)),
            introduction=paragraph(rng, (1, 2)),
            date_published=first_day + datetime.timedelta(days=n),
            body=body(rng),
            blog_person_relationship=[
                BlogPersonRelationship(person=person, sort_order=order)
                for order, person in enumerate(authors)
            ],
        )
        page.tags.add(*rng.sample(tag_names, 3))
        index.add_child(instance=page)
