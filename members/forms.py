import unicodedata

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Value
from django.db.models.functions import Concat
from django.utils.http import url_has_allowed_host_and_scheme

from newsletters.forms import reachable_domain
from people.models import Author

# Characters that turn the text's direction (Unicode's bidirectional controls): a name
# starting with U+202E shows the words after it reversed.
BIDI_CONTROLS = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def folded(text):
    """Letters and digits only, case and compatibility forms folded: "S K I L L O" and
    the full-width letters of the same are "skillo"."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


class SignInForm(forms.Form):
    email = forms.EmailField(
        label="Your e-mail address",
        max_length=254,
        error_messages={
            "required": "Type your e-mail address: the link to sign in is sent to it.",
            "invalid": "That is not an e-mail address: it looks like name@example.org.",
            "max_length": "An e-mail address has at most 254 characters (this one has "
            "%(show_value)d).",
        },
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    # Hidden from people (CSS and aria-hidden); bots that fill every field fill it.
    website = forms.CharField(required=False, label="Leave this empty")
    # The page the reader came from (a story): where the link brings them back.
    next = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_next(self):
        return local_path(self.cleaned_data["next"])

    def clean_email(self):
        email = self.cleaned_data["email"]
        reachable_domain(email)
        return email


class EraseForm(forms.Form):
    confirm = forms.BooleanField(
        label="Yes, erase my membership and everything Skillo keeps about me",
        error_messages={"required": "Tick the box to confirm: erasing cannot be undone."},
    )


class NameForm(forms.Form):
    name = forms.CharField(
        label="Name shown with your comments",
        max_length=60,
        required=False,
        help_text="Never your address. Empty: “A Skillo member”.",
        error_messages={
            "max_length": "A name has at most 60 characters (this one has %(show_value)d)."
        },
    )

    def clean_name(self):
        name = self.cleaned_data["name"]
        if BIDI_CONTROLS & set(name):
            raise ValidationError(
                "A name cannot hold the characters that turn text's direction (U+202E and "
                "the like): readers would read something else than what is written."
            )
        if folded(name) and is_taken(folded(name)):
            raise ValidationError(
                "That name is the site's, or one of its editors' or authors': readers would "
                "take your comments for theirs. Choose another."
            )
        return name


def is_taken(name):
    """Whether a folded name is the site's (or holds it) or a staff member's or author's."""
    if folded(settings.SKILLO_FEDIVERSE_SITE_TITLE) in name:
        return True
    staff = get_user_model().objects.filter(is_staff=True)
    full_names = staff.annotate(full=Concat("first_name", Value(" "), "last_name"))
    names = [
        *Author.objects.values_list("name", flat=True),
        *staff.values_list("username", flat=True),
        *full_names.values_list("full", flat=True),
    ]
    return name in {folded(known) for known in names}


def local_path(value):
    """``value`` if it is an address on this site (a path), else ""."""
    value = (value or "")[:500]
    if value.startswith("/") and url_has_allowed_host_and_scheme(value, allowed_hosts=set()):
        return value
    return ""
