"""The editors' choices for the site in a whole-site backup (front.json): the header's
topics in order, topic intros, and the home page's pins. export_site writes it;
import_site restores it after the articles and topics, all or nothing with them."""

import json

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from news.models import Article, FrontPin, Tag

BACKUP_FRONT = "front.json"


def write_front(path):
    data = {
        "header_topics": list(
            Tag.objects.filter(header_position__isnull=False)
            .order_by("header_position", "name")
            .values_list("slug", flat=True)
        ),
        "intros": dict(Tag.objects.exclude(intro="").order_by("slug").values_list("slug", "intro")),
        "pins": [
            {
                "article": pin.article.slug,
                "lead": pin.lead,
                "position": pin.position,
                "until": pin.until.isoformat() if pin.until else None,
            }
            for pin in FrontPin.objects.select_related("article").order_by("pk")
        ],
    }
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    path.write_text(text, encoding="utf-8", newline="\n")


def restore_front(path):
    """Restore front.json (if the backup has one); the problems, each naming what."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        topics = {tag.slug: tag for tag in Tag.objects.all()}
        articles = dict(Article.objects.values_list("slug", "pk"))
        problems = []
        for position, slug in enumerate(data.get("header_topics", []), start=1):
            if slug not in topics:
                problems.append(f"{path}: header topic {slug!r} is not in tags.txt.")
            else:
                topics[slug].header_position = position
        for slug, intro in data.get("intros", {}).items():
            if slug not in topics:
                problems.append(f"{path}: the intro of {slug!r}: no such topic in tags.txt.")
            else:
                topics[slug].intro = intro
        pins = []
        for number, pin in enumerate(data.get("pins", []), start=1):
            if pin["article"] not in articles:
                problems.append(f"{path}: pin {number}: no article {pin['article']!r}.")
                continue
            until = parse_datetime(pin["until"]) if pin.get("until") else None
            if pin.get("until") and until is None:
                problems.append(f"{path}: pin {number}: 'until' is not a date-time.")
            pins.append(
                FrontPin(
                    article_id=articles[pin["article"]],
                    lead=bool(pin.get("lead")),
                    position=int(pin.get("position", 0)),
                    until=until,
                )
            )
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        return [f"{path}: not a readable front page file ({error!r})."]
    for tag in topics.values():
        try:
            tag.full_clean(validate_unique=False)
        except ValidationError as error:
            problems += [f"{path}: topic {tag.slug!r}: {m}" for m in error.messages]
    if problems:
        return problems
    for tag in topics.values():
        if tag.header_position is not None or tag.intro:
            tag.save(update_fields=["header_position", "intro"])
    one_lead(pins)
    FrontPin.objects.bulk_create(pins)
    return []


def one_lead(pins):
    """One lead story (the constraint one_lead_story): a backup made before it may hold
    several, of which the one readers saw stays the lead (the first in the pins' order,
    position then newest, whose time has not run out and whose article is public; else
    the last pinned) and the others become features, still pinned."""
    leads = [(number, pin) for number, pin in enumerate(pins) if pin.lead]
    if len(leads) < 2:
        return
    now = timezone.now()
    public = set(
        Article.objects.published()
        .filter(pk__in=[pin.article_id for _, pin in leads])
        .values_list("pk", flat=True)
    )
    shown = [
        (pin.position, -number, pin)
        for number, pin in leads
        if (pin.until is None or pin.until > now) and pin.article_id in public
    ]
    kept = min(shown, key=lambda found: found[:2])[2] if shown else leads[-1][1]
    for _, pin in leads:
        pin.lead = pin is kept
