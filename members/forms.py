from django import forms

from newsletters.forms import reachable_domain


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
