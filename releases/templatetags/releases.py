"""Links from the news pages to the watched projects' public pages (releases.public)."""

from django import template
from django.utils.html import format_html, format_html_join

from news.models import Tag
from pagecache.dependencies import depends_on
from pagecache.remembered import remember

from ..dependencies import PROJECTS
from ..models import WatchedProject

register = template.Library()


def pages_by_topic():
    """{topic id: [(project name, its page)]} for the projects with a public page, worked
    out once per change of a project (PROJECTS): a topic page or an article costs no
    query for it."""

    def pages():
        found = {}
        rows = WatchedProject.objects.filter(public_page=True, topics__isnull=False)
        for topic, name, slug in rows.values_list("topics", "name", "slug").order_by("name"):
            found.setdefault(topic, []).append((name, WatchedProject(slug=slug).get_absolute_url()))
        return found

    return remember("releases:pages-by-topic", [PROJECTS()], pages)


@register.simple_tag(takes_context=True)
def release_histories(context, topics):
    """'Releases Skillo covered: PyTorch' for the projects of ``topics`` (a topic, or an
    article's kept topics, as (id, name, slug)) that have a public page; nothing if none
    has."""
    if request := context.get("request"):
        depends_on(request, PROJECTS())
    ids = [topics.pk] if isinstance(topics, Tag) else [topic[0] for topic in topics]
    by_topic, links = pages_by_topic(), {}
    for pk in ids:
        links.update((url, name) for name, url in by_topic.get(pk, ()))
    if not links:
        return ""
    return format_html(
        '<p class="release-histories">Releases Skillo covered: {}</p>',
        format_html_join(", ", '<a href="{}">{}</a>', links.items()),
    )
