"""The admin's widgets where Django's own fall short of valid HTML."""

from django.contrib.admin.widgets import AutocompleteSelect


class NamedEmptyAutocompleteSelect(AutocompleteSelect):
    """An autocomplete whose empty choice says "None": Django's is an empty <option>,
    which HTML does not allow (an option needs text or a label). Select2 shows its
    placeholder for it all the same; without JavaScript the reader sees the word."""

    def create_option(self, name, value, label, *args, **kwargs):
        return super().create_option(name, value, label if value != "" else "None", *args, **kwargs)


class NamedEmptyAutocomplete:
    """For a ModelAdmin or inline: its autocomplete_fields get NamedEmptyAutocompleteSelect."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = NamedEmptyAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
