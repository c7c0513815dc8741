from django.views.generic import ListView

from .query import MAX_QUERY_LENGTH, search


class SearchView(ListView):
    """Never cached: every query is its own page."""

    paginate_by = 10
    context_object_name = "results"
    template_name = "search/results.html"

    def get_queryset(self):
        self.query = self.request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
        return search(self.query)

    def get_context_data(self, **kwargs):
        return super().get_context_data(query=self.query, **kwargs)
