from django import forms

from people.models import Author

from .models import Entry


class EntryForm(forms.ModelForm):
    """The desk's composer: one entry, posted in one step."""

    class Meta:
        model = Entry
        fields = ["headline", "body", "key_event"]
        widgets = {
            "headline": forms.TextInput(attrs={"class": "vTextField", "autocomplete": "off"}),
            "body": forms.Textarea(attrs={"rows": 5, "class": "vLargeTextField"}),
        }


class EntryEditForm(EntryForm):
    """An entry changed after posting: its words, whether it is a key event, its authors."""

    authors = forms.ModelMultipleChoiceField(
        queryset=Author.objects.only("name"), required=False, help_text="Its byline."
    )

    class Meta(EntryForm.Meta):
        pass
