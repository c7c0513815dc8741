import html
import math
import operator
from collections import namedtuple
from datetime import datetime, time
from functools import reduce

import reversion
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Upper
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.html import strip_tags
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from taggit.managers import TaggableManager
from taggit.models import NaturalKeyManager, TagBase, TaggedItemBase

from images.cards import HEIGHT as CARD_HEIGHT
from images.cards import WIDTH as CARD_WIDTH
from images.cards import card_key
from images.models import KEY_LENGTH, Image
from images.renditions import social_rendition
from pagecache.remembered import remember
from sources.models import SourceURL

from .dependencies import FRONT
from .paths import article_path
from .rendering import IMAGE_SCHEME, PLACEMENT, html_to_text, placed_keys, render_markdown
from .rules import (
    MAX_HEADER_TOPICS,
    SEARCH_DESCRIPTION_CHARS,
    SEARCH_TITLE_CHARS,
    SELF_RELATION,
    body_within_limit,
    http_url_validator,
    intro_within_limit,
    lead_image_problems,
    missing_image_problems,
    no_control_characters,
    note_within_limit,
    related_link_count_problems,
    source_count_problems,
    summary_within_limit,
    tag_problems,
    within_years,
)
from .slugs import lock_article_slugs, slug_from_title

WORDS_PER_MINUTE = 230
ShareImage = namedtuple("ShareImage", "url width height alt")
MONTH_NAMES = [
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
]  # fmt: skip


# Topics with more articles than this are read by walking the articles in page order and
# checking the topic (EXISTS), instead of joining every article of the topic and
# sorting them all: the first page of a topic on 40% of 100,000 articles then reads a few
# dozen rows instead of 40,000. Smaller topics are cheaper to join.
BIG_TOPIC = 1000


def tagged(tag_id, size, big=None):
    """A filter for articles with the tag ``tag_id``, which has ``size`` articles: its
    articles joined, or, past ``big`` (BIG_TOPIC) of them, each candidate checked."""
    if size <= (BIG_TOPIC if big is None else big):
        return Q(tags=tag_id)
    return Exists(TaggedArticle.objects.filter(content_object=OuterRef("pk"), tag_id=tag_id))


def written_by(author_id, size):
    """A filter for articles by ``author_id``, who has ``size`` bylines: as tagged(), a
    busy author's newest articles are found in page order through EXISTS, not by sorting
    all of theirs."""
    if size <= BIG_TOPIC:
        return Q(authorships__author=author_id)
    return Exists(ArticleAuthor.objects.filter(article=OuterRef("pk"), author_id=author_id))


# Comparisons of the lookups the public rule uses, for an article already in memory.
_COMPARE = {"exact": operator.eq, "lte": operator.le}


def public_rule(now=None):
    """What the public may see, said once, as field lookups: published, and its time has
    come. ``ArticleQuerySet.published()`` filters by them; ``Article.is_published()``
    checks an article in memory against the same lookups."""
    return {"status": Article.Status.PUBLISHED, "published_at__lte": now or timezone.now()}


def matches(instance, lookups):
    """Whether ``instance`` passes ``lookups`` (``exact`` and ``lte`` only), in Python."""
    for lookup, value in lookups.items():
        name, _, kind = lookup.partition("__")
        if not _COMPARE[kind or "exact"](getattr(instance, name), value):
            return False
    return True


class ArticleQuerySet(models.QuerySet):
    def published(self):
        """What the public may see (public_rule())."""
        return self.filter(**public_rule())

    def not_public(self):
        """Everything published() leaves out: drafts, articles in review, scheduled ones."""
        return self.exclude(**public_rule())

    def scheduled(self):
        """Published, with a time still to come: public by itself then."""
        now = timezone.now()
        # The range says again what the rule's exclusion says, in a form an index walks
        # from now on: without it PostgreSQL read every public article, oldest first, to
        # reach the few scheduled ones (300 ms at 100,000 articles).
        return self.filter(status=Article.Status.PUBLISHED, published_at__gt=now).exclude(
            **public_rule(now)
        )

    def drafts(self):
        return self.filter(status=Article.Status.DRAFT)

    def in_review(self):
        return self.filter(status=Article.Status.REVIEW)

    def for_list(self):
        return (
            self.published()
            .prefetch_related(byline_prefetch(names_only=True))
            .order_by("-published_at", "-pk")
        )

    def for_detail(self):
        """An article page's article with everything it shows of it (its own parts),
        and its related links."""
        return self.select_related("lead_image", "social_image").prefetch_related(
            *own_parts_prefetch(), related_links_prefetch()
        )

    def showing_image(self, image):
        """Articles showing ``image``: as their lead or social image or placed in their
        text (the text search is a scan, fine for the rare change of an image)."""
        return self.filter(
            Q(lead_image=image)
            | Q(social_image=image)
            | Q(body__icontains=f"{IMAGE_SCHEME}{image.key}")
        )

    def referencing(self, article):
        """Published articles whose related links point to ``article``, newest first."""
        return (
            self.published()
            .filter(pk__in=RelatedLink.objects.leading_to(article).values("article"))
            .exclude(pk=article.pk)
            .order_by("-published_at", "-pk")
        )


def related_links_prefetch():
    """An article's related links with what readers may see of them: whether the target
    is public, and for a link by title, the published article it leads to."""
    related = RelatedLink.objects.select_related("target").annotate(
        target_is_public=Exists(Article.objects.published().filter(pk=OuterRef("target"))),
        title_match_slug=models.Subquery(
            Article.objects.published()
            .filter(title_upper=Upper(OuterRef("title")))
            .order_by("-published_at")
            .values("slug")[:1]
        ),
    )
    return models.Prefetch("related_links", queryset=related)


def own_parts_prefetch():
    """What an article page shows of the article itself besides its row and its topics
    (``with_topics()``): sources with their archived copies, corrections, byline with
    the authors' links."""
    sources = Source.objects.annotate(
        # The archived copy an editor chose for a dead source (sources.SourceURL, keyed
        # by URL): read with the sources, no query of its own.
        archive_url=models.Subquery(
            SourceURL.objects.filter(url=OuterRef("url"))
            .exclude(archive_url="")
            .values("archive_url")[:1]
        )
    )
    return [
        models.Prefetch("sources", queryset=sources),
        "corrections",
        # The authors' links are their sameAs in JSON-LD; no query without authors.
        byline_prefetch(ArticleAuthor.objects.prefetch_related("author__links")),
    ]


def with_topics(articles):
    """``articles`` (any iterable of them) as a list, each with its topics by name
    (``article.topics``), read in one query for all of them: the tags alone, each
    marked with its article. (A prefetch of the taggings with their tags made twice the
    objects and took twice as long.)"""
    articles = list(articles)
    found = {}
    if articles:
        tags = (
            Tag.objects.filter(tagged_articles__content_object__in=[a.pk for a in articles])
            .annotate(tagged_article=models.F("tagged_articles__content_object"))
            .order_by("name", "pk")
        )
        for tag in tags:
            found.setdefault(tag.tagged_article, []).append(tag)
    for article in articles:
        article._topics = found.get(article.pk, [])
    return articles


def byline_prefetch(queryset=None, *, names_only=False):
    """An article's authors in their order, with the authors, in one query for a whole
    list of articles (``article.authorships.all()``, as templates read them).

    ``names_only``: each author's name and slug, and what their portrait's renditions are
    named from, only, as a list's bylines show them; otherwise whole authors with their
    portraits, as an article's structured data does.
    """
    queryset = queryset if queryset is not None else ArticleAuthor.objects
    if names_only:
        return models.Prefetch(
            "authorships",
            queryset=queryset.select_related("author", "author__photo").only(
                "article",
                "position",
                "author__name",
                "author__slug",
                "author__photo__sha256",
                "author__photo__width",
                "author__photo__height",
                "author__photo__renditions_made_for",
            ),
        )
    return models.Prefetch(
        "authorships", queryset=queryset.select_related("author", "author__photo")
    )


def email_stories_by_default():
    """Whether a story is e-mailed when it is published, unless the editor chose
    (settings.SKILLO_EMAIL_STORIES_ON_PUBLISH, from EMAIL_STORIES_ON_PUBLISH)."""
    return settings.SKILLO_EMAIL_STORIES_ON_PUBLISH


# Callables that give more searchable text of an article, by its id, from apps above news
# (live coverage's entries); Article.refresh_search_extra() adds what they give.
search_extra_sources = []


class Article(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        # A draft a writer has handed to the editors; still not public.
        REVIEW = "review", "Ready for review"
        PUBLISHED = "published", "Published"

    title = models.CharField(max_length=200, validators=[no_control_characters])
    title_upper = models.GeneratedField(
        expression=Upper("title"),
        output_field=models.CharField(max_length=200),
        db_persist=True,
        editable=False,
    )
    slug = models.SlugField(
        max_length=100,
        unique=True,
        blank=True,
        help_text="The article's address: /articles/SLUG/. Made from the title if left empty.",
    )
    summary = models.TextField(
        blank=True,
        validators=[no_control_characters, summary_within_limit],
        help_text="One or two sentences for lists and search results.",
    )
    body = models.TextField(
        validators=[no_control_characters, body_within_limit],
        help_text=(
            "Markdown. Start each section with '## Heading'; "
            "the title is the page's only top-level heading."
        ),
    )
    lead_image = models.ForeignKey(
        "images.Image",
        null=True,
        blank=True,
        # An image an article shows cannot be deleted from the library under it.
        on_delete=models.PROTECT,
        related_name="lead_of",
        help_text="Shown above the text, in link previews and in search results.",
    )
    # How the article appears in search results and share cards, when not as its title,
    # summary and lead image say (Article.page_title, description, share_image).
    search_title = models.CharField(
        "search title",
        max_length=SEARCH_TITLE_CHARS,
        blank=True,
        validators=[no_control_characters],
        help_text="The title search results and the browser's tab show, when the headline "
        "would be cut or says less out of context. Empty: the title.",
    )
    meta_description = models.CharField(
        "meta description",
        max_length=SEARCH_DESCRIPTION_CHARS,
        blank=True,
        validators=[no_control_characters],
        help_text="What search results and share cards say under the title. Empty: the "
        "summary (or the first paragraph), cut at 40 words.",
    )
    social_image = models.ForeignKey(
        "images.Image",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="social_image_of",
        help_text="The picture of share cards (Mastodon, Bluesky, LinkedIn, chat apps), when "
        "not the lead image. Empty: the lead image, or a card with the title.",
    )
    body_html = models.TextField(editable=False, default="")
    # Plain text of the body, and the article's tags and sources: what search indexes.
    body_text = models.TextField(editable=False, default="")
    search_extra = models.TextField(editable=False, default="")
    event_date = models.DateField(validators=[within_years], help_text="When the news happened.")
    published_at = models.DateTimeField(
        "published",
        default=timezone.now,
        db_index=True,
        validators=[within_years],
        help_text=(
            "When readers can see it, in the newsroom's time zone. May be backdated to the "
            "event date; a future time with the status Published schedules the article."
        ),
    )
    facts_verified = models.DateField(
        "facts verified",
        validators=[within_years],
        help_text="The month in which an editor last checked the facts against the sources.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    # The editor's choice on the article form's bar ("Publish" or "Publish and send"); an
    # article published another way (a bulk action, an import) follows the site's default.
    email_subscribers = models.BooleanField(
        "e-mail to subscribers",
        default=email_stories_by_default,
        editable=False,
        help_text="Whether the story is e-mailed to the newsletter's subscribers when it is "
        "published (once: a story is never e-mailed twice).",
    )
    tags = TaggableManager(blank=True, through="TaggedArticle")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    # Incremented by every save: an edit based on an older version is refused.
    version = models.PositiveIntegerField(default=1, editable=False)

    objects = ArticleQuerySet.as_manager()

    class Meta:
        ordering = ["-published_at", "-pk"]
        get_latest_by = "published_at"
        permissions = [("publish_article", "Can publish, schedule, unpublish and delete")]
        indexes = [
            # The id too: lists order by it after the publication time, and an index that
            # holds that whole order lets SQLite's planner walk it in the page's order and
            # read only the page's rows.
            models.Index(
                fields=["status", "-published_at", "-id"], name="article_status_published"
            ),
            models.Index(fields=["title_upper"], name="article_title_upper"),
            # Archives, timelines and neighbours read public articles in event-date order:
            # from this index alone, whatever SQLite's statistics say (with none, or a
            # sample's, its planner read an archive month through the index above and
            # every published article's row).
            models.Index(
                fields=["status", "event_date", "published_at", "id"], name="article_status_event"
            ),
            # The dashboard's "Facts due": public articles verified before a month, oldest
            # first, and their count, from the index alone (at 100,000 articles the two
            # read every article's row: 480 and 360 ms on SQLite).
            models.Index(
                fields=["status", "facts_verified", "published_at", "id"],
                name="article_status_facts",
            ),
            # The sitemaps' lastmods: the latest change of a public article (with a topic,
            # with a byline), read newest first until one is public; an aggregate read
            # every published article (news.sitemaps.latest_update).
            models.Index(fields=["status", "-updated_at"], name="article_status_updated"),
        ]

    def __str__(self):
        return self.title

    def save(self, *args, **kwargs):
        if not self.slug:
            self._save_with_new_slug(*args, **kwargs)
            return
        old_slug = getattr(self, "_stored_slug", None)
        if self.pk and old_slug and old_slug != self.slug:
            # Old URLs keep working: a redirect straight to the current slug.
            RetiredSlug.objects.update_or_create(slug=old_slug, defaults={"article": self})
        RetiredSlug.objects.filter(slug=self.slug).delete()
        self._stored_slug = self.slug
        if self.facts_verified:
            self.facts_verified = self.facts_verified.replace(day=1)
        self.body_html = render_markdown(self.body)
        self.body_text = html_to_text(self.body_html)
        if self.pk:
            # Every save of an existing article, from any path (admin, bulk action,
            # import), moves the version on, so edits based on the old one are refused.
            self.version += 1
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return article_path(self.slug)

    def note_in_history(self, user, words):
        """A line in the article's history (its revisions), the article unchanged: what
        was done to it from elsewhere than its form (a preview link, a send, coverage)."""
        with reversion.create_revision():
            reversion.set_user(user)
            reversion.set_comment(words)
            reversion.add_to_revision(self)

    @classmethod
    def from_db(cls, db, field_names, values, **kwargs):
        article = super().from_db(db, field_names, values, **kwargs)
        # Remembered so that save() can retire the old address when the slug changes.
        article._stored_slug = article.__dict__.get("slug")
        return article

    def _save_with_new_slug(self, *args, **kwargs):
        # Another save may take the same slug between choosing and inserting it: on
        # PostgreSQL the lock makes saves choose in turn; elsewhere, choose again.
        for _attempt in range(5):
            try:
                with transaction.atomic():
                    lock_article_slugs()
                    self.slug = self.unique_slug()
                    return self.save(*args, **kwargs)
            except IntegrityError:
                if not Article.objects.filter(slug=self.slug).exclude(pk=self.pk).exists():
                    raise
                self.slug = ""
        raise IntegrityError(f"Could not find a free slug for {self.title!r}.")

    def clean(self):
        errors = {}
        if self.facts_verified and self.facts_verified.replace(day=1) > timezone.localdate():
            errors["facts_verified"] = "The facts cannot have been verified in a future month."
        if self.lead_image_id and (problems := lead_image_problems(self.lead_image)):
            errors["lead_image"] = problems
        if self.social_image_id and (
            problems := lead_image_problems(self.social_image, "social image")
        ):
            errors["social_image"] = problems
        if self.body and (problems := self.placement_problems()):
            errors["body"] = problems
        if errors:
            raise ValidationError(errors)

    def placement_problems(self):
        """Library images the body places (``![](image:KEY)``) that are not in the
        library."""
        keys = [key[:KEY_LENGTH] for key in placed_keys(self.body)]
        if not keys:
            return []
        known = {sha[:KEY_LENGTH] for sha in Image.objects.filter(
            reduce(operator.or_, (Q(sha256__startswith=key) for key in keys))
        ).values_list("sha256", flat=True)}  # fmt: skip
        return missing_image_problems([key for key in keys if key not in known])

    def validate_parts(self, *, tags=None, sources=None, related_links=None):
        """Check the parts of the article that are not columns of its row: ``tags`` (names),
        ``sources`` and ``related_links`` (rows, saved or not). Parts left out are not
        checked.

        Raises ValidationError keyed by part ("tags", "sources", "related_links"). Each
        source and related link also has its own rules, which its ``full_clean()`` checks
        (a related link to the article itself, say: ``RelatedLink.clean()``).
        """
        errors = {}
        if tags is not None:
            errors["tags"] = tag_problems(list(tags))
        if sources is not None:
            errors["sources"] = source_count_problems(len(sources))
        if related_links is not None:
            errors["related_links"] = related_link_count_problems(len(related_links))
        errors = {part: problems for part, problems in errors.items() if problems}
        if errors:
            raise ValidationError(errors)

    def unique_slug(self):
        base = slug_from_title(self.title)
        others = Article.objects.exclude(pk=self.pk).order_by()
        # The likely slugs by name first: an index lookup on any database, where SQLite
        # scans every row for LIKE 'base%' (0.3 s at 100,000 articles).
        candidates = [base, *(f"{base}-{n}" for n in range(2, 21))]
        taken = set(others.filter(slug__in=candidates).values_list("slug", flat=True))
        if free := next((slug for slug in candidates if slug not in taken), None):
            return free
        taken = set(others.filter(slug__startswith=base).values_list("slug", flat=True))
        slug, n = base, 2
        while slug in taken:
            slug = f"{base}-{n}"
            n += 1
        return slug

    def is_published(self):
        return matches(self, public_rule())

    is_published.boolean = True
    is_published.short_description = "public"

    @property
    def is_scheduled(self):
        return self.status == self.Status.PUBLISHED and not self.is_published()

    @property
    def published_date(self):
        return timezone.localdate(self.published_at)

    @property
    def is_backdated(self):
        return self.published_date == self.event_date

    @property
    def facts_verified_label(self):
        return f"{MONTH_NAMES[self.facts_verified.month - 1]} {self.facts_verified.year}"

    @property
    def footer_html(self):
        """The editorial footer, built from the stored dates (docs/newsroom.md, "Articles"),
        with each date in a <time> element. Every value in it is a formatted date or a
        month's name, so it is assembled without format_html(), which cost a tenth of a
        millisecond of each article page."""

        def when(day, text=None):
            return f'<time datetime="{day}">{text or day}</time>'

        event, published = f"{self.event_date:%Y-%m-%d}", f"{self.published_date:%Y-%m-%d}"
        # A preview of what is not public says so: a draft's publication date is only
        # the editor's guess, and an outside reviewer must not read it as a fact.
        if self.status != self.Status.PUBLISHED:
            dates = f"Not published yet; the event took place on {when(event)}."
        elif self.is_scheduled:
            dates = f"To be published on {when(published)}; the event took place on {when(event)}."
        elif self.is_backdated:
            dates = f"Published date reflects the original event date ({when(event)})."
        else:
            dates = f"Published on {when(published)}; the event took place on {when(event)}."
        verified = when(f"{self.facts_verified:%Y-%m}", self.facts_verified_label)
        return mark_safe(
            f"{dates} This article is original Skillo editorial written from the sources "
            f"above; facts were verified in {verified}."
        )

    @property
    def footer_sentence(self):
        return strip_tags(self.footer_html)

    def structured_data(self, url, publisher, author, absolute):
        """schema.org NewsArticle for JSON-LD; needs tags and sources loaded.
        ``publisher`` is Skillo's Organization (news.templatetags.news.organization),
        ``author`` its authors as Persons, or the desk as an Organization
        (news.templatetags.news.byline_structured_data); ``absolute`` makes a path a
        full URL (request.build_absolute_uri)."""
        # A date-time, as schema.org's contentReferenceTime expects: the event's day,
        # from midnight in the newsroom's time zone.
        event = timezone.make_aware(datetime.combine(self.event_date, time.min))
        return {
            "@context": "https://schema.org",
            "@type": "NewsArticle",
            "headline": self.title,
            "description": self.meta_description or self.teaser,
            "url": url,
            "mainEntityOfPage": url,
            "inLanguage": settings.LANGUAGE_CODE,
            "datePublished": self.published_at.replace(microsecond=0).isoformat(),
            "dateModified": self.updated_at.replace(microsecond=0).isoformat(),
            "contentReferenceTime": event.isoformat(),
            "keywords": [tag.name for tag in self.topics],
            "wordCount": len(self.body_text.split()),
            "author": author,
            "publisher": publisher,
            **({"image": images} if (images := self.structured_images(absolute)) else {}),
            "citation": [
                {
                    "@type": "CreativeWork",
                    "name": source.title,
                    "publisher": {"@type": "Organization", "name": source.publisher},
                    **({"url": source.url} if source.url else {}),
                }
                for source in self.sources.all()
            ],
            **({"correction": notes} if (notes := self.structured_corrections()) else {}),
        }

    def structured_corrections(self):
        """schema.org CorrectionComments for the corrections (not the updates); needs
        corrections loaded (for_detail())."""
        return [
            {
                "@type": "CorrectionComment",
                "text": correction.note,
                "datePublished": correction.published_at.replace(microsecond=0).isoformat(),
            }
            for correction in self.corrections.all()
            if correction.kind == Correction.Kind.CORRECTION
        ]

    @property
    def notices(self):
        """(corrections, updates) in date order, as the page shows them; needs
        corrections loaded (for_detail())."""
        notes = list(self.corrections.all())
        return (
            [note for note in notes if note.kind == Correction.Kind.CORRECTION],
            [note for note in notes if note.kind == Correction.Kind.UPDATE],
        )

    @property
    def page_title(self):
        """The title search results show: the search title, or the headline."""
        return self.search_title or self.title

    @property
    def description(self):
        """What search results and share cards say under the title."""
        return self.meta_description or Truncator(self.teaser).words(40, truncate=" …")

    @property
    def share_picture(self):
        """The library image share cards show, if any: the social image, else the lead."""
        return self.social_image if self.social_image_id else self.lead_image

    def share_image(self):
        """The picture link previews show (og:image): the social or lead image cropped
        around its focal point, or a card drawn from the title and first topic (also
        while the picture's crops are being made). Needs tags loaded."""
        picture = self.share_picture
        if picture is not None and picture.crops_ready:
            card = social_rendition(picture, "card")
            return ShareImage(card.url, card.width, card.height, picture.alt or self.title)
        # Drawn when first asked for (news.views.share_card), not while the page renders.
        url = reverse("news:card", args=[self.pk, card_key(self.title, self.first_topic_name)])
        return ShareImage(url, CARD_WIDTH, CARD_HEIGHT, self.title)

    @property
    def first_topic_name(self):
        tags = sorted(self.topics, key=lambda tag: tag.name.casefold())
        return tags[0].name if tags else ""

    def structured_images(self, absolute):
        """The lead image as Google's Article guidance asks: 16:9, 4:3 and 1:1 crops,
        1,200 pixels wide; without one, the card link previews show (share_image())."""
        if not (self.lead_image_id and self.lead_image.crops_ready):
            return [absolute(self.share_image().url)]
        return [
            absolute(social_rendition(self.lead_image, shape).url)
            for shape in ("16x9", "4x3", "1x1")
        ]

    @property
    def topics(self):
        """The article's topics by name, read when first asked for: ``with_topics()``
        reads them for a whole list of articles in one query."""
        if not hasattr(self, "_topics"):
            with_topics([self])
        return self._topics

    @property
    def byline(self):
        """The article's authors in order; needs ``byline_prefetch()`` (for_list(),
        for_detail()) so that a list of cards costs no query per card."""
        return [authorship.author for authorship in self.authorships.all()]

    @property
    def reading_minutes(self):
        # A minute begun counts: rounded, a five-section story of 272 words said "1 min".
        return max(1, math.ceil(len(self.body_text.split()) / WORDS_PER_MINUTE))

    def refresh_search_extra(self):
        """Copy tags and sources into the searchable text (they live in other tables),
        and the text apps above keep for the article (search_extra_sources)."""
        extra = " ".join(
            [
                *self.tags.values_list("name", flat=True),
                *(
                    f"{title} {publisher}"
                    for title, publisher in self.sources.values_list("title", "publisher")
                ),
                *(text for source in search_extra_sources if (text := source(self.pk))),
            ]
        )
        Article.objects.filter(pk=self.pk).update(search_extra=extra)

    @cached_property
    def teaser(self):
        """The summary, or the body's first paragraph when there is none."""
        if self.summary:
            return self.summary
        for block in self.body_html.split("</p>"):
            if "<p>" in block:
                # Plain text, as typed: templates escape it again where it is shown.
                text = PLACEMENT.sub("", block.split("<p>", 1)[1])
                if text := html.unescape(strip_tags(text)).strip():
                    return text
        return ""


class SourceQuerySet(models.QuerySet):
    def cited_urls(self):
        """The distinct URLs that published articles cite (what check_sources checks)."""
        return (
            self.filter(article__in=Article.objects.published())
            .exclude(url="")
            .values_list("url", flat=True)
            .distinct()
        )


class Source(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="sources")
    position = models.PositiveIntegerField(default=0)
    title = models.CharField(max_length=300, validators=[no_control_characters])
    publisher = models.CharField(max_length=200, validators=[no_control_characters])
    url = models.URLField(
        "URL",
        max_length=500,
        blank=True,
        validators=[http_url_validator],
        help_text="Optional; http or https only.",
    )

    objects = SourceQuerySet.as_manager()

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self):
        return f"{self.title} ({self.publisher})"


def set_null_keeping_title(collector, field, sub_objs, using):
    """``RelatedLink.target``'s on_delete: SET_NULL, after copying into each link the title
    its target has when it is deleted, the title the link then falls back to. (The title
    copied when the link was saved may be old: the target can have been renamed since, by
    any path: the admin, an import, a restored revision, a bulk update.)"""
    collector.add_field_update(field.model._meta.get_field("title"), TARGET_TITLE, sub_objs)
    collector.add_field_update(field, None, sub_objs)


set_null_keeping_title.lazy_sub_objs = True  # one UPDATE per batch; no rows are read
# The current title of a link's target, for an UPDATE of links. One object for every
# deletion: the collector runs its updates grouped by (field, value) in the order it first
# sees them, so every title is copied before any target is cleared.
TARGET_TITLE = models.Subquery(Article.objects.filter(pk=OuterRef("target")).values("title"))


class RelatedLinkQuerySet(models.QuerySet):
    def leading_to(self, article):
        """Links to ``article``: by target, or, without one, by its title (upper-cased on
        both sides, as ``title_upper`` is indexed)."""
        return self.filter(
            Q(target=article.pk)
            | Q(target__isnull=True, title_upper=Upper(models.Value(article.title)))
        )


class RelatedLink(models.Model):
    """A "See also" entry: another Skillo article, or the title of one not written yet.

    A link by title resolves, when the page is read, to the published article with that
    title (case-insensitively), so it becomes a real link the moment that article exists.
    """

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="related_links")
    position = models.PositiveIntegerField(default=0)
    target = models.ForeignKey(
        Article,
        on_delete=set_null_keeping_title,
        null=True,
        blank=True,
        related_name="+",
        help_text="An existing article, or leave empty and give a title.",
    )
    title = models.CharField(
        max_length=200,
        blank=True,
        validators=[no_control_characters],
        help_text="The title of an article that may not be written yet.",
    )
    title_upper = models.GeneratedField(
        expression=Upper("title"),
        output_field=models.CharField(max_length=200),
        db_persist=True,
        editable=False,
    )

    objects = RelatedLinkQuerySet.as_manager()

    class Meta:
        ordering = ["position", "pk"]
        indexes = [models.Index(fields=["title_upper"], name="relatedlink_title_upper")]
        constraints = [
            models.CheckConstraint(
                condition=Q(target__isnull=True) | ~Q(target=models.F("article")),
                name="relatedlink_not_self",
            ),
        ]

    def __str__(self):
        return self.display_title

    def save(self, *args, **kwargs):
        # Keep the target's title, so that the link has one before its target goes (when
        # the target is deleted, set_null_keeping_title copies its title as it is then).
        if self.target_id and self.target:
            self.title = self.target.title
        self.title = self.title.strip()
        super().save(*args, **kwargs)

    def clean(self):
        if not self.target_id and not self.title.strip():
            raise ValidationError("Choose an article or type a title.")
        # The article may be unsaved (the admin's add form, an import): then it is known
        # only as the instance assigned to the link.
        known = self.article_id or RelatedLink.article.is_cached(self)
        if known and self.article is not None and self.leads_to(self.article):
            field = "target" if self.target_id else "title"
            raise ValidationError({field: ValidationError(SELF_RELATION, code="self")})

    def leads_to(self, article):
        """Whether this link leads to ``article``: by its target, or, without one, by its
        title, case-insensitively (as links by title are resolved)."""
        if self.target_id:
            return self.target_id == article.pk
        return self.title.strip().casefold() == article.title.strip().casefold()

    @property
    def display_title(self):
        return self.target.title if self.target_id and self.target else self.title

    @property
    def public_url(self):
        """The URL to show readers, or None; needs ``ArticleQuerySet.for_detail()``."""
        if self.target_id:
            return self.target.get_absolute_url() if self.target_is_public else None
        if self.title_match_slug:
            return article_path(self.title_match_slug)
        return None

    @property
    def is_public(self):
        """False for a link to an unpublished article, which readers must not see."""
        return not self.target_id or self.target_is_public


class TagQuerySet(models.QuerySet):
    def spellings(self, names):
        """``names`` as the topics they stand for are named: a name that an existing topic
        has in any case, or that is a topic's slug, is that topic's name; any other stays
        as given (a new topic). So a file written when a topic was named by its slug
        ("programming-languages") tags its article with that topic, now "Programming
        languages", rather than with a new one at /tags/programming-languages-2/."""
        names = list(names)
        if not names:
            return []
        same_name = reduce(operator.or_, (Q(name__iexact=name) for name in names))
        found = self.filter(same_name | Q(slug__in=names)).order_by("pk")
        by_name, by_slug = {}, {}
        for name, slug in found.values_list("name", "slug"):
            by_name.setdefault(name.casefold(), name)
            by_slug[slug] = name
        return [by_name.get(name.casefold()) or by_slug.get(name) or name for name in names]


class Tag(TagBase):
    """A topic. taggit's tag, with ASCII slugs made like articles' ("Ünïcode" gives
    ``unicode``, an emoji its name), never empty, since /tags/<slug>/ must hold them."""

    intro = models.TextField(
        blank=True,
        validators=[no_control_characters, intro_within_limit],
        help_text="A few sentences shown at the top of the topic's page (plain text; a "
        "blank line starts a new paragraph).",
    )
    header_position = models.PositiveSmallIntegerField(
        "position in the site header",
        null=True,
        blank=True,
        help_text="Topics with a position are the site header's, in this order (at most "
        f"{MAX_HEADER_TOPICS}). With none chosen, the header shows the biggest topics.",
    )

    # taggit's manager (natural keys, for serialised revisions) with spellings().
    objects = NaturalKeyManager.from_queryset(TagQuerySet)()

    class Meta:
        verbose_name = "tag"
        verbose_name_plural = "tags"
        ordering = ["name"]

    def slugify(self, tag, i=None):
        # taggit asks again with i = 1, 2... while the slug is taken: base-2, base-3...
        slug = slug_from_title(tag, fallback="tag")
        return slug if i is None else f"{slug}-{i + 1}"


class TaggedArticle(TaggedItemBase):
    """An article's tag: a real foreign key to the article (taggit's own TaggedItem is a
    generic relation through content types, which every topic query had to join)."""

    tag = models.ForeignKey(Tag, on_delete=models.CASCADE, related_name="tagged_articles")
    # Its name lets django-reversion keep the tags with each revision of the article.
    content_object = models.ForeignKey(
        "Article", on_delete=models.CASCADE, related_name="tagged_items"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["content_object", "tag"], name="tagged_article_once")
        ]
        indexes = [models.Index(fields=["tag", "content_object"], name="tagged_article_by_tag")]


class ArticleAuthor(models.Model):
    """An author of an article, in the byline's order. Here, not in people: news knows
    about people, never the reverse."""

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="authorships")
    # An author with articles cannot be deleted: their bylines would silently change.
    author = models.ForeignKey(
        "people.Author", on_delete=models.PROTECT, related_name="authorships"
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = "author"
        verbose_name_plural = "authors"
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["article", "author"], name="article_author_once")
        ]
        indexes = [models.Index(fields=["author", "article"], name="article_author_by_author")]

    def __str__(self):
        return str(self.author)


class CorrectionQuerySet(models.QuerySet):
    def public(self):
        """Corrections of articles readers may see (the /corrections/ page and feed)."""
        return (
            self.filter(kind=Correction.Kind.CORRECTION, article__in=Article.objects.published())
            .select_related("article")
            .order_by("-published_at", "-pk")
        )


class Correction(models.Model):
    """A public note on a change to a published article: a *correction* (something was
    wrong) or an *update* (something new). A typo fix has none. Made with the revision of
    the save that made the change (``reversion.add_meta``), so editors can open its diff."""

    class Kind(models.TextChoices):
        CORRECTION = "correction", "Correction"
        UPDATE = "update", "Update"

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="corrections")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    note = models.TextField(
        validators=[no_control_characters, note_within_limit],
        help_text="What changed, for readers: one or two sentences.",
    )
    published_at = models.DateTimeField("published", default=timezone.now, db_index=True)
    # The revision whose save made the change; none for one restored from a backup.
    revision = models.ForeignKey(
        "reversion.Revision",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )

    objects = CorrectionQuerySet.as_manager()

    class Meta:
        ordering = ["published_at", "pk"]
        get_latest_by = "published_at"
        indexes = [models.Index(fields=["kind", "-published_at"], name="correction_by_kind")]

    def __str__(self):
        return f"{self.get_kind_display()} to “{self.article}”"

    def get_absolute_url(self):
        return f"{self.article.get_absolute_url()}#{self.anchor}"

    @property
    def anchor(self):
        return f"{self.kind}-{self.pk}"


class RetiredSlug(models.Model):
    """An address an article no longer uses: a 301 to its article, or 410 Gone once the
    article is deleted."""

    slug = models.SlugField(max_length=100, unique=True)
    article = models.ForeignKey(
        Article, on_delete=models.SET_NULL, null=True, blank=True, related_name="retired_slugs"
    )
    retired_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return self.slug


# Revisions keep an article together with its sources, related links, tags and authors,
# so that restoring one brings all of them back (see editorial/admin.py).
reversion.register(Source)
reversion.register(RelatedLink)
reversion.register(TaggedArticle)
reversion.register(ArticleAuthor)
# Not followed by the article: a note is made by a save's revision, and its later edits
# and removal (admins only) are revisions of their own (editorial.admin.CorrectionAdmin).
reversion.register(Correction)
reversion.register(Article, follow=["sources", "related_links", "tagged_items", "authorships"])


class FrontPinQuerySet(models.QuerySet):
    def active(self, now=None):
        """Pins whose time has not run out, on articles readers can see."""
        now = now or timezone.now()
        return self.filter(
            Q(until__isnull=True) | Q(until__gt=now),
            article__in=Article.objects.published(),
        )


class FrontPin(models.Model):
    """An editor's choice for the home page: the lead story, or a pinned feature, until
    a time (or until unpinned). Without any, the home page is the latest articles."""

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="front_pins")
    lead = models.BooleanField(
        "lead story",
        default=False,
        help_text="Shown first and largest; one at a time.",
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Features in this order.")
    until = models.DateTimeField(
        null=True, blank=True, help_text="Unpinned by itself at this time; empty: until removed."
    )
    pinned_at = models.DateTimeField(auto_now_add=True)

    objects = FrontPinQuerySet.as_manager()

    class Meta:
        ordering = ["-lead", "position", "-pinned_at"]
        verbose_name = "front page choice"
        verbose_name_plural = "front page"
        constraints = [
            # One lead story: making another the lead makes this one a feature
            # (editorial.forms.FrontPinForm), also for editors choosing at the same moment.
            models.UniqueConstraint(fields=["lead"], condition=Q(lead=True), name="one_lead_story"),
        ]

    def __str__(self):
        return f"{'Lead story' if self.lead else 'Feature'}: {self.article.title}"


def front_choices():
    """The editors' choices for the home page, as article ids: (the lead stories, first
    first; every pinned article, in the pins' order). Whether each is public is the
    cards' to say (news.fragments.cards_of()). Remembered until the editors change them
    (FRONT), so the home page reads no pin."""

    def pins():
        return [
            [pk, lead, until.timestamp() if until else None]
            for pk, lead, until in FrontPin.objects.filter(
                Q(until__isnull=True) | Q(until__gt=timezone.now())
            ).values_list("article_id", "lead", "until")
        ]

    now = timezone.now().timestamp()
    active = [(pk, lead) for pk, lead, until in remember("front:pins", [FRONT()], pins)
              if until is None or until > now]  # fmt: skip
    # The pins come in their order (FrontPin.Meta.ordering): the first lead leads.
    leads = [pk for pk, lead in active if lead]
    return leads, list(dict.fromkeys(pk for pk, _ in active))


class SiteIdentity(models.Model):
    """The site's address and its feeds' id authority as they were when the site first
    published (news.identity): feed readers and fediverse followers keep both, so a
    change after that is refused by a system check."""

    site_url = models.CharField(max_length=200)
    feed_id_authority = models.CharField(max_length=200)
    recorded_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "site identity"
        verbose_name_plural = "site identity"

    def __str__(self):
        return f"{self.site_url} (feed ids: {self.feed_id_authority})"
