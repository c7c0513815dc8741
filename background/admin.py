"""The task queue in the admin, for admins only (superusers: nobody else has its
permissions): django-tasks-db's list as "Background work > Background tasks" (a proxy
of its model, background.models.BackgroundTask), with "run again" and "discard".

Failures come first; the periodic tasks that ended well (a few a minute, background.schedule)
are left out unless the filter asks for them, so that a failure is not buried under them."""

from django.contrib import admin, messages
from django.db.models import Case, Value, When
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult, get_date_max

from . import schedule
from .models import BackgroundTask

# Listed once, under this app's names (the proxy's admin below).
admin.site.unregister(DBTaskResult)


class PeriodicSuccessFilter(admin.SimpleListFilter):
    title = "periodic tasks that ended well"
    parameter_name = "periodic"

    def lookups(self, request, model_admin):
        return [("hidden", "Hidden"), ("shown", "Shown")]

    def chosen(self):
        return "shown" if self.value() == "shown" else "hidden"

    def choices(self, changelist):
        # No "All": hidden is the default, chosen by no parameter at all.
        for lookup, title in self.lookup_choices:
            yield {
                "selected": self.chosen() == lookup,
                "query_string": (
                    changelist.get_query_string({self.parameter_name: lookup})
                    if lookup == "shown"
                    else changelist.get_query_string(remove=[self.parameter_name])
                ),
                "display": title,
            }

    def queryset(self, request, queryset):
        if self.chosen() == "shown":
            return queryset
        return queryset.exclude(
            status=TaskResultStatus.SUCCESSFUL, task_path__in=schedule.periodic_task_paths()
        )


@admin.register(BackgroundTask)
class TaskAdmin(DBTaskResultAdmin):
    list_display = [
        "task_name",
        "status",
        "tries",
        "enqueued_at",
        "due",
        "finished_at",
        "error",
    ]
    list_filter = ["status", PeriodicSuccessFilter, "queue_name"]
    search_fields = ["task_path", "exception_class_path"]
    actions = ["run_again", "discard"]

    def get_ordering(self, request):
        failed_first = Case(When(status=TaskResultStatus.FAILED, then=Value(0)), default=Value(1))
        return [failed_first.asc(), "-enqueued_at"]

    def has_module_permission(self, request):
        return request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_manage_permission(self, request):
        return request.user.is_superuser

    @admin.display(description="tries")
    def tries(self, row):
        return len(row.worker_ids)

    @admin.display(description="run after", ordering="run_after")
    def due(self, row):
        # django-tasks-db stores "no delay" as the year 9999.
        if row.run_after == get_date_max():
            return "now" if row.status == TaskResultStatus.READY else None
        return row.run_after

    @admin.display(description="error")
    def error(self, row):
        return row.exception_class_path.rsplit(".", 1)[-1] or "-"

    @admin.action(description="Run again now, with a fresh count of tries", permissions=["manage"])
    def run_again(self, request, queryset):
        count = queryset.exclude(status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.READY,
            run_after=timezone.now(),
            worker_ids=[],
            started_at=None,
            finished_at=None,
        )
        self.message_user(request, f"{count} tasks queued again.", messages.SUCCESS)

    @admin.action(description="Discard (not running ones)", permissions=["manage"])
    def discard(self, request, queryset):
        count, _ = queryset.exclude(status=TaskResultStatus.RUNNING).delete()
        self.message_user(request, f"{count} tasks discarded.", messages.SUCCESS)
