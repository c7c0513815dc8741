"""Highlighted code as readers see it: readable (axe's contrast rules) in both themes."""

import pytest

from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db(transaction=True)

CODE = '''```python
# A comment, a decorator, strings, numbers and keywords.
@dataclass
class Release(Base):
    """Docstring."""
    version: str = "3.13"
    def ship(self, when=None, *args, **kwargs) -> bool:
        return f"{self.version!r}" if when else 0x1F + 2.5e3 and True
```

```javascript
const answer = async (x) => { await fetch(`/api/${x}`); return /re+gex/g.test(x) ?? null; };
```

```bash
export PATH="$HOME/bin:$PATH"  # comment
if [ -n "$1" ]; then echo "ok" | grep -c o; fi
```'''


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_highlighted_code_passes_axe(page, live_server, axe_source, scheme):
    article = ArticleFactory(title="Code sample", body=f"## What happened\n\n{CODE}")
    page.emulate_media(color_scheme=scheme)
    page.goto(live_server.url + article.get_absolute_url())
    assert page.locator("pre.highlight span.k, pre.highlight span.kd").count() > 0
    page.evaluate(axe_source)
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    assert [(v["id"], [n["target"] for n in v["nodes"]][:5]) for v in result["violations"]] == []
