"""The dashboard's buttons on a tip (POST only, in the admin, CSRF-checked)."""

import reversion
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from . import desk
from .models import Tip


def back(request):
    return redirect("admin:index")


@require_POST
def write_up(request, tip_id):
    tip = get_object_or_404(Tip.objects.select_related("project"), pk=tip_id)
    if not desk.may_write_up(request.user, tip):
        raise PermissionDenied
    with reversion.create_revision():
        reversion.set_user(request.user)
        reversion.set_comment(f"Started from the release desk: {tip}.")
        article, made = desk.write_up(tip, request.user)
    if not made:
        messages.info(request, f"{tip} was written up already: here is its article.")
    return redirect("admin:news_article_change", article.pk)


@require_POST
def dismiss(request, tip_id):
    if not desk.may_assign(request.user):
        raise PermissionDenied
    tip = get_object_or_404(Tip.objects.select_related("project"), pk=tip_id)
    desk.dismiss(tip)
    messages.success(request, f"{tip}: not news. It will not come back.")
    return back(request)


@require_POST
def assign(request, tip_id):
    if not desk.may_assign(request.user):
        raise PermissionDenied
    tip = get_object_or_404(Tip.objects.select_related("project"), pk=tip_id)
    user = desk.assignable_users().filter(pk=request.POST.get("assignee") or None).first()
    if user is None:
        messages.error(request, f"{tip}: choose who writes it up.")
        return back(request)
    desk.assign(tip, user)
    messages.success(request, f"{tip} is {user.get_username()}'s to write up.")
    return back(request)
