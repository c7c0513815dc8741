"""The home page's first page as a newsroom lays it out: the lead story, the top stories
under it, a section per header topic with its latest stories, then the rest of the
newest.

The editors decide what goes where (news.models.front_choices(): the lead and pinned
features; the header's topics and their order, news.topics.main_topics()); without
choices the newest stories fill each place. Each article shows once on the page.

Where each article goes is worked out once per publication or change of the choices or
topics (``layout``), from ids alone; a request then reads the kept cards (news.fragments)
of the articles shown and no others, so the page costs the same queries as a plain list
of cards.
"""

import hashlib
import json
from dataclasses import dataclass

from pagecache.remembered import remember

from . import fragments
from .dependencies import FRONT, LATEST, TOPICS
from .models import Article, front_choices, tagged
from .paths import tag_path
from .topics import main_topics

# The stories under the lead (a grid of three columns at desktop widths, two rows).
TOP_SIZE = 6
# The latest stories of each header topic.
SECTION_SIZE = 3
# How many of a topic's newest are read: enough for SECTION_SIZE once the lead and the
# top stories, which may all be in the topic, are left out.
SECTION_CANDIDATES = SECTION_SIZE + TOP_SIZE + 1


@dataclass(frozen=True)
class Topic:
    """A section's header topic, as the page shows and links it."""

    pk: int
    name: str
    slug: str
    url: str


@dataclass(frozen=True)
class Section:
    topic: Topic
    cards: list


@dataclass(frozen=True)
class FrontPage:
    lead: fragments.Card | None
    # Whether an editor chose the lead (else it is the newest story).
    lead_chosen: bool
    top: list
    sections: list
    # The rest of the page's newest stories, shown after the sections.
    rest: list

    @property
    def shown(self):
        """Every card on the page."""
        return [
            *([self.lead] if self.lead else []),
            *self.top,
            *(card for section in self.sections for card in section.cards),
            *self.rest,
        ]


def layout(newest):
    """Where each article goes, as ids: {"lead", "lead_chosen", "top", "sections": [[topic
    id, name, slug, [ids]]], "rest"}. Only public articles are placed (a pin may be a
    draft's, or outlive its article's publication)."""
    leads, pinned = front_choices()
    topics = main_topics()
    section_candidates = [
        list(
            Article.objects.published()
            .filter(tagged(topic.pk, topic.article_count))
            .order_by("-published_at", "-pk")
            .values_list("pk", flat=True)[:SECTION_CANDIDATES]
        )
        for topic in topics
    ]
    candidates = {*leads, *pinned, *newest, *(pk for pks in section_candidates for pk in pks)}
    public = set(Article.objects.published().filter(pk__in=candidates).values_list("pk", flat=True))
    shown = set()

    def take(pks, limit=None):
        taken = []
        for pk in pks:
            if limit is not None and len(taken) == limit:
                break
            if pk in public and pk not in shown:
                shown.add(pk)
                taken.append(pk)
        return taken

    chosen = take(leads, limit=1)
    lead = chosen or take(newest[:1])
    top = take([*pinned, *newest], limit=TOP_SIZE)
    sections = [
        [topic.pk, topic.name, topic.slug, pks]
        for topic, candidates in zip(topics, section_candidates, strict=True)
        if (pks := take(candidates, limit=SECTION_SIZE))
    ]
    return {
        "lead": lead[0] if lead else None,
        "lead_chosen": bool(chosen),
        "top": top,
        "sections": sections,
        "rest": take(newest),
    }


def front_page(newest):
    """The first page laid out from ``newest`` (the ids of the page's newest articles)."""
    # Kept per list of newest ids, whatever purge may still be on its way. A pin that
    # runs out is on the schedule (news.purge.ArticleSchedule), which purges FRONT.
    digest = hashlib.md5(json.dumps(newest).encode(), usedforsecurity=False).hexdigest()
    placed = remember(
        f"front:layout:{digest}", [LATEST(), FRONT(), TOPICS()], lambda: layout(newest)
    )
    lead = [("lead", placed["lead"])] if placed["lead"] is not None else []
    found = fragments.cards_of(
        [
            *lead,
            *(("card", pk) for pk in placed["top"]),
            *(("card", pk) for *_, pks in placed["sections"] for pk in pks),
            *(("card", pk) for pk in placed["rest"]),
        ]
    )

    def cards(pks):
        # An article no longer public has no card until the next layout.
        return fragments.Cards(found[("card", pk)] for pk in pks if ("card", pk) in found)

    sections = [
        Section(Topic(pk, name, slug, tag_path(slug)), cards(pks))
        for pk, name, slug, pks in placed["sections"]
    ]
    return FrontPage(
        lead=found.get(lead[0]) if lead else None,
        lead_chosen=placed["lead_chosen"],
        top=cards(placed["top"]),
        sections=[section for section in sections if section.cards],
        rest=cards(placed["rest"]),
    )
