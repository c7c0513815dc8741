"""The newsroom's home page column for members' comments, for those who moderate."""

from editorial.sites import dashboard_part

from .models import Comment


@dashboard_part
def comments_waiting(request):
    if not request.user.has_perm("members.change_comment"):
        return None
    return {
        "template": "admin/members/dashboard_comments.html",
        "waiting": Comment.objects.filter(state=Comment.State.PENDING).count(),
    }
