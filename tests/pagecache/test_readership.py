"""A page served from the page cache still counts its view: the cached HTML carries the
beacon script, and the beacon itself is never cached."""

import json

import pytest
from django.db.models import Sum

from readership.folding import fold
from readership.models import ArticleHour
from tests.factories import ArticleFactory
from tests.test_readership import BROWSER

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]


def test_a_view_of_a_cached_page_is_counted(reader, committed, later):
    with committed():
        article = ArticleFactory()
    later()
    url = article.get_absolute_url()
    reader.get(url)
    assert reader.cached(url)
    page = reader.get(url).content.decode()
    assert "js/beacon.js" in page
    body = json.dumps({"p": url, "r": "", "w": "s"})
    for n in range(2):  # two readers
        browser = {**BROWSER, "User-Agent": f"{BROWSER['User-Agent']} reader{n}"}
        response = reader.post(
            "/readership/beacon/", body, content_type="text/plain", headers=browser
        )
        assert response.status_code == 204
    fold()
    assert ArticleHour.objects.aggregate(views=Sum("views"))["views"] == 2
