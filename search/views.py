import re

from django.views.generic import ListView

from news.dependencies import FEEDS, NAV
from pagecache.dependencies import cached_page

from .query import MAX_QUERY_LENGTH, search
from .suggest import suggest

# Control characters are no words, and NUL is no text to either database (PostgreSQL
# refuses it in a string, SQLite's full-text query ends there): read as spaces.
CONTROLS = re.compile(r"[\x00-\x1f\x7f]")


# A results page shows public articles' titles, dates, text and topics: any change to a
# public article or a topic purges FEEDS (news.purge), so that key keeps it fresh. Each
# query and page is its own cached page, with its "Did you mean" (from public articles
# too, so the same purges keep it fresh).
@cached_page(NAV, FEEDS, parameters=["q", "page"])
class SearchView(ListView):
    paginate_by = 10
    context_object_name = "results"
    template_name = "search/results.html"

    def get_queryset(self):
        typed = CONTROLS.sub(" ", self.request.GET.get("q", ""))
        self.query = typed.strip()[:MAX_QUERY_LENGTH]
        return search(self.query)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(query=self.query, **kwargs)
        # Known once the paginator has counted: past EXACT_COUNT matches, an estimate.
        context["approximate"] = getattr(self.object_list, "approximate", False)
        if self.query and not context["paginator"].count:
            context["suggestion"] = suggest(self.query)
        return context
