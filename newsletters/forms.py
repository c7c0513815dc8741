from django import forms
from django.core.exceptions import ValidationError

from news.models import Tag
from people.models import Author

from .models import Subscriber

WHAT_ERROR = "Choose “Every story” or “Only the topics and authors I choose”."
HOW_OFTEN_ERROR = "Choose how often: each story, a daily digest or a weekly digest."
CHOICE = [("everything", "Every story"), ("chosen", "Only the topics and authors I choose")]


class ChoicesMixin:
    def clean(self):
        cleaned = super().clean()
        if cleaned.get("what") == "chosen" and not (
            cleaned.get("topics") or cleaned.get("authors")
        ):
            raise ValidationError(
                "Choose at least one topic or author, or “Every story”.", code="nothing_chosen"
            )
        return cleaned


def topic_field():
    return forms.ModelMultipleChoiceField(
        queryset=Tag.objects.order_by("name"),
        to_field_name="slug",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "“%(value)s” is not one of Skillo's topics."},
    )


def author_field():
    return forms.ModelMultipleChoiceField(
        queryset=Author.objects.order_by("name"),
        to_field_name="slug",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "“%(value)s” is not one of Skillo's authors."},
    )


# Top-level names that only a machine or its own network resolves (RFC 6761's localhost
# and invalid, RFC 6762's local, RFC 7686's onion, RFC 8375's home.arpa, ICANN's internal)
# and the localdomain of many systems' hosts files: a relay delivers them to itself.
SPECIAL_USE = {"localhost", "localdomain", "local", "invalid", "internal", "arpa", "onion"}


def reachable_domain(email):
    """An address on the internet's domains: Django's validator also takes names without
    a dot (user@localhost) and address literals (user@[127.0.0.1]), which a relay would
    deliver to itself or to a machine of its own network. The public form refuses them;
    the admin's import keeps Django's rule for the lists an editor brings."""
    domain = email.rpartition("@")[2]
    if domain.startswith("["):
        raise ValidationError(
            "Addresses at an IP address (%(domain)s) are not accepted: use one at a "
            "domain name, like name@example.org.",
            code="address_literal",
            params={"domain": domain},
        )
    if "." not in domain.strip("."):
        raise ValidationError(
            "“%(domain)s” is not a domain on the internet: the address needs one with a "
            "dot, like name@example.org.",
            code="dotless_domain",
            params={"domain": domain},
        )
    if domain.strip(".").rpartition(".")[2].lower() in SPECIAL_USE:
        raise ValidationError(
            "“%(domain)s” is a name for a machine's own network, not a domain on the "
            "internet: use an address like name@example.org.",
            code="special_use_domain",
            params={"domain": domain},
        )


class SignUpForm(ChoicesMixin, forms.Form):
    email = forms.EmailField(
        label="Your e-mail address",
        max_length=254,
        error_messages={
            "invalid": "That is not an e-mail address: it looks like name@example.org.",
            "max_length": "An e-mail address has at most 254 characters (this one has "
            "%(show_value)d).",
        },
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    what = forms.ChoiceField(
        label="What to receive",
        choices=CHOICE,
        initial="everything",
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": WHAT_ERROR, "required": WHAT_ERROR},
    )
    topics = topic_field()
    authors = author_field()
    frequency = forms.ChoiceField(
        label="How often",
        choices=Subscriber.Frequency.choices,
        initial=Subscriber.Frequency.EACH,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": HOW_OFTEN_ERROR, "required": HOW_OFTEN_ERROR},
    )
    corrections = forms.BooleanField(
        label="Tell me when a story I was sent is corrected", required=False, initial=True
    )
    # Hidden from people (CSS and aria-hidden); bots that fill every field fill it.
    website = forms.CharField(required=False, label="Leave this empty")

    def clean_email(self):
        # After Django's own check, so that a malformed address gets its one message.
        email = self.cleaned_data["email"]
        reachable_domain(email)
        return email


class PreferencesForm(ChoicesMixin, forms.ModelForm):
    what = forms.ChoiceField(label="What to receive", choices=CHOICE, widget=forms.RadioSelect)
    topics = topic_field()
    authors = author_field()
    paused = forms.BooleanField(
        label="Pause: send me nothing until I come back here", required=False
    )

    class Meta:
        model = Subscriber
        fields = ["frequency", "topics", "authors", "corrections"]
        widgets = {"frequency": forms.RadioSelect}
        labels = {"frequency": "How often"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        subscriber = self.instance
        self.fields["what"].initial = "everything" if subscriber.everything else "chosen"
        self.fields["paused"].initial = subscriber.state == Subscriber.State.PAUSED

    def save(self, commit=True):
        subscriber = super().save(commit=False)
        subscriber.everything = self.cleaned_data["what"] == "everything"
        if subscriber.state in (Subscriber.State.ACTIVE, Subscriber.State.PAUSED):
            paused = self.cleaned_data["paused"]
            subscriber.state = Subscriber.State.PAUSED if paused else Subscriber.State.ACTIVE
        subscriber.save()
        self.save_m2m()
        return subscriber
