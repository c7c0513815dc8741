"""The newsroom's public addresses: a draft shown through a preview link
(editorial.previews) to someone outside the newsroom, and the page where an invited
person joins it (editorial.invitations)."""

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render

from news import fragments
from news.models import Article
from news.views import allow_players
from people.rules import no_control_characters

from . import invitations, previews
from .tokens import kept_by_no_one


def shared_preview(request, token):
    link, problem = previews.find(token)
    if problem == "unknown":
        raise Http404("No such preview.")
    if problem is not None:
        response = render(
            request, "editorial/preview_gone.html", {"link": link, "why": problem}, status=410
        )
    else:
        article = Article.objects.select_related("lead_image", "social_image").get(
            pk=link.article_id
        )
        parts = fragments.render_own_parts(request, article)
        around, _ = fragments.render_surroundings(article, parts.topic_tags)
        response = render(
            request,
            "news/article_detail.html",
            {"article": article, "parts": parts, "around": around, "shared_preview": link},
        )
        allow_players(response, parts.player_origins)
    return kept_by_no_one(response, "no-referrer")


def invitation_gone(request, invitation, why):
    return render(
        request, "editorial/invitation_gone.html", {"invitation": invitation, "why": why},
        status=410,
    )  # fmt: skip


class JoinForm(UserCreationForm):
    """The invited person's user name and password (Django's password rules), and their
    name: colleagues see it, and it signs their articles (invitations.accept)."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "first_name"]
        labels = {"first_name": "Your name"}
        help_texts = {
            "first_name": "Your articles are signed with it. You can change it, and add a "
            "bio and a photo, in your author profile."
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["first_name"].required = True
        self.fields["first_name"].validators.append(no_control_characters)


def accept_invitation(request, token):
    invitation, problem = invitations.find(token)
    if problem == "unknown":
        raise Http404("No such invitation.")
    if problem is not None:
        response = invitation_gone(request, invitation, problem)
    else:
        suggested = invitation.email.split("@")[0].lower()
        form = JoinForm(
            request.POST or None, initial={"username": suggested, "first_name": invitation.name}
        )
        user = None
        if request.method == "POST" and form.is_valid():
            with transaction.atomic():
                if invitations.claim(invitation):
                    user = form.save()
                    invitations.accept(invitation, user)
                else:
                    # Used by a request sent at the same moment (a double click, the
                    # link opened twice), or expired since it was found.
                    invitation, problem = invitations.find(token)
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request,
                f"Welcome to the newsroom, {user.get_full_name() or user.get_username()}: "
                f"you are in as {invitation.get_role_display().lower()}.",
            )
            return redirect("admin:index")
        if problem is not None:
            response = invitation_gone(request, invitation, problem)
        else:
            response = render(
                request, "editorial/invitation.html", {"invitation": invitation, "form": form}
            )
    # Its address (the token) sent to no other site; same-origin, since "no-referrer"
    # makes the browser send "Origin: null" with the form, which CSRF checks refuse.
    return kept_by_no_one(response, "same-origin")
