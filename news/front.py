"""The home page's first page as a newsroom lays it out: the lead story, the top stories
under it, a section per header topic with its latest stories, then the rest of the
newest.

The editors decide what goes where (news.models.front_choices(): the lead and pinned
features; the header's topics and their order, news.topics.main_topics()); without
choices the newest stories fill each place. Each article shows once on the page. Every
part is a kept card (news.fragments), read together with the page's newest, so the page
costs the same queries as a plain list of cards.
"""

from dataclasses import dataclass

from pagecache.remembered import remember

from . import fragments
from .dependencies import LATEST, TOPICS
from .models import Article, front_choices, tagged
from .topics import main_topics

# The stories under the lead (a grid of three columns at desktop widths, two rows).
TOP_SIZE = 6
# The latest stories of each header topic.
SECTION_SIZE = 3
# How many of a topic's newest are read: enough for SECTION_SIZE once the lead and the
# top stories, which may all be in the topic, are left out.
SECTION_CANDIDATES = SECTION_SIZE + TOP_SIZE + 1


@dataclass(frozen=True)
class Section:
    topic: object
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


def topic_sections():
    """[(header topic, ids of its newest published articles)], in the header's order.
    Worked out once per publication or change of topics (LATEST, TOPICS), not per page."""

    def newest():
        return [
            [
                topic.pk,
                list(
                    Article.objects.published()
                    .filter(tagged(topic.pk, topic.article_count))
                    .order_by("-published_at", "-pk")
                    .values_list("pk", flat=True)[:SECTION_CANDIDATES]
                ),
            ]
            for topic in main_topics()
        ]

    topics = {topic.pk: topic for topic in main_topics()}
    found = remember("front:sections", [LATEST(), TOPICS()], newest)
    return [(topics[pk], pks) for pk, pks in found if pk in topics]


def front_page(newest):
    """The first page laid out from ``newest`` (the ids of the page's newest articles)."""
    leads, pinned = front_choices()
    sections = topic_sections()
    wanted = [
        *(("lead", pk) for pk in [*leads, *newest[:1]]),
        *(("card", pk) for pk in pinned),
        *(("card", pk) for pk in newest),
        *(("card", pk) for _, pks in sections for pk in pks),
    ]
    found = fragments.cards_of(wanted)
    shown = set()

    def take(pks, limit=None, kind="card"):
        taken = []
        for pk in pks:
            if limit is not None and len(taken) == limit:
                break
            card = found.get((kind, pk))
            if card is not None and pk not in shown:
                shown.add(pk)
                taken.append(card)
        return taken

    chosen = take(leads, limit=1, kind="lead")
    lead = chosen[0] if chosen else next(iter(take(newest[:1], kind="lead")), None)
    top = take([*pinned, *newest], limit=TOP_SIZE)
    by_topic = [Section(topic, take(pks, limit=SECTION_SIZE)) for topic, pks in sections]
    return FrontPage(
        lead=lead,
        lead_chosen=bool(chosen),
        top=top,
        sections=[section for section in by_topic if section.cards],
        rest=take(newest),
    )
