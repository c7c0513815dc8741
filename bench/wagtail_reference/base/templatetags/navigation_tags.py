"""The tags of bakerydemo's base template: the site root, the top menu (its live
children shown in menus), breadcrumbs (the page's ancestors) and the footer text."""

from django import template
from wagtail.models import Page, Site

from base.models import FooterText

register = template.Library()


@register.simple_tag(takes_context=True)
def get_site_root(context):
    return Site.find_for_request(context["request"]).root_page


@register.inclusion_tag("tags/top_menu.html", takes_context=True)
def top_menu(context, parent, calling_page=None):
    menuitems = parent.get_children().live().in_menu()
    for menuitem in menuitems:
        # The template engine passes "" for a missing calling_page.
        menuitem.active = (
            calling_page.url_path.startswith(menuitem.url_path) if calling_page else False
        )
    return {"calling_page": calling_page, "menuitems": menuitems, "request": context["request"]}


@register.inclusion_tag("tags/breadcrumbs.html", takes_context=True)
def breadcrumbs(context):
    self = context.get("self")
    if self is None or self.depth <= 2:
        # The home page has none.
        ancestors = ()
    else:
        ancestors = Page.objects.ancestor_of(self, inclusive=True).filter(depth__gt=1)
    return {"ancestors": ancestors, "request": context["request"]}


@register.inclusion_tag("tags/footer_text.html", takes_context=True)
def get_footer_text(context):
    footer_text = context.get("footer_text", "")
    if not footer_text:
        instance = FooterText.objects.filter(live=True).first()
        footer_text = instance.body if instance else ""
    return {"footer_text": footer_text}
