"""Pagination that never counts: lists stay as fast with 100,000 articles as with 100."""

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator

from pagecache.remembered import remember

from .dependencies import LATEST

# The largest OFFSET either database takes (a signed 64-bit integer): a page past it is
# past the last page, not a query the database refuses (PostgreSQL's "bigint out of
# range", SQLite's "datatype mismatch": a 500 for ?page= with 20 digits).
MAX_OFFSET = 2**63 - 1


class LookaheadPage(Page):
    def __init__(self, object_list, number, paginator, has_next):
        super().__init__(object_list, number, paginator)
        self._has_next = has_next

    def has_next(self):
        return self._has_next

    def has_other_pages(self):
        return self._has_next or self.number > 1


class LookaheadPaginator(Paginator):
    """Reads one row more than a page to know whether another page follows.

    A COUNT over every published article (or every article of a big topic) grows with
    the archive; readers only need "Newer" and "Older", so pages show no total.
    """

    # Templates leave out "of N pages" (includes/pagination.html).
    lookahead = True

    def validate_number(self, number):
        try:
            number = int(number)
        except (TypeError, ValueError) as error:
            raise PageNotAnInteger("That page number is not an integer.") from error
        if number < 1:
            raise EmptyPage("That page number is less than 1.")
        if number * self.per_page > MAX_OFFSET:
            raise EmptyPage("That page contains no results.")
        return number

    def page(self, number):
        number = self.validate_number(number)
        start = (number - 1) * self.per_page
        rows = self.rows(start, start + self.per_page + 1)
        if not rows and number > 1:
            raise EmptyPage("That page contains no results.")
        return LookaheadPage(rows[: self.per_page], number, self, len(rows) > self.per_page)

    def rows(self, start, stop):
        return list(self.object_list[start:stop])


class NewestPaginator(LookaheadPaginator):
    """The newest articles' ids, the first page's remembered until a publication changes
    them (LATEST): the home page, rebuilt for an edit of a story it shows, reads none."""

    def rows(self, start, stop):
        if start:
            return super().rows(start, stop)
        return remember(
            f"articles:newest:{stop}",
            [LATEST()],
            lambda: super(NewestPaginator, self).rows(start, stop),
        )
