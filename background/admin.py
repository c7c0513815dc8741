"""The task queue in the admin, for admins only (superusers: nobody else has its
permissions): django-tasks-db's list, with "run again" and "discard"."""

from django.contrib import admin, messages
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult

admin.site.unregister(DBTaskResult)


@admin.register(DBTaskResult)
class TaskAdmin(DBTaskResultAdmin):
    list_display = [
        "task_name",
        "status",
        "tries",
        "enqueued_at",
        "run_after",
        "finished_at",
        "error",
    ]
    list_filter = ["status", "queue_name"]
    search_fields = ["task_path", "exception_class_path"]
    actions = ["run_again", "discard"]

    def has_module_permission(self, request):
        return request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_manage_permission(self, request):
        return request.user.is_superuser

    @admin.display(description="tries")
    def tries(self, row):
        return len(row.worker_ids)

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
