from django.contrib import admin
from django_tasks_db.models import DBTaskResult

from people.models import Author
from releases import desk as releases_desk

from . import conversation, queues
from .models import sources_to_fix_count
from .roles import can_publish

SHOWN = 8

# Columns the apps above editorial add to the newsroom's home page (members' comments
# waiting, say): functions of the request giving a column's template and context, or None
# for a user who cannot act on it. Registered in their app's ready() with dashboard_part.
DASHBOARD_PARTS = []


def dashboard_part(function):
    DASHBOARD_PARTS.append(function)
    return function


class NewsroomSite(admin.AdminSite):
    """The admin as a newsroom: Skillo's name, and the queues on its home page."""

    site_header = "Skillo newsroom"
    site_title = "Skillo newsroom"
    index_title = "Newsroom"
    index_template = "admin/newsroom_index.html"

    def index(self, request, extra_context=None):
        user = request.user
        dashboard = {}
        if user.has_perm("news.view_article"):
            # Each role sees what it can act on: editors the desk's queues, a writer
            # their own articles in them (queues.to_act_on), and neither the facts due
            # nor the sources to fix, which only editors may change.
            review = queues.to_act_on(user, queues.ready_for_review())
            unread = conversation.unread_for(user)
            dashboard = {
                "for_you": list(unread[:SHOWN]),
                "for_you_count": unread.count(),
                "review": review[:SHOWN],
                "review_count": review.count(),
                "my_drafts": queues.drafts_of(user)[:SHOWN],
                "my_profile": Author.objects.filter(user=user).first(),
                "scheduled": queues.to_act_on(user, queues.scheduled_next())[:SHOWN],
                "scheduled_today": queues.to_act_on(user, queues.scheduled_today()).count(),
                "wanted": queues.wanted_titles(limit=SHOWN),
                "published": queues.to_act_on(user, queues.recently_published())[:SHOWN],
                "can_publish": can_publish(user),
                "facts_due": None,
                "sources_to_fix": None,
            }
            # The release desk's tips: the Releases column, and those given to the user.
            dashboard.update(releases_desk.dashboard(user))
            if user.has_perm("editorial.change_factsdue"):
                facts_due = queues.facts_due()
                dashboard["facts_due"] = facts_due.order_by("facts_verified", "published_at")[
                    :SHOWN
                ]
                dashboard["facts_due_count"] = facts_due.count()
            if user.has_perm("editorial.change_sourcetofix"):
                dashboard["sources_to_fix"] = sources_to_fix_count()
            dashboard["parts"] = [
                part for function in DASHBOARD_PARTS if (part := function(request)) is not None
            ]
        if user.is_superuser:  # the task queue is the admins' (background.admin)
            dashboard["failed_tasks"] = DBTaskResult.objects.failed().count()
        return super().index(request, {**dashboard, **(extra_context or {})})
