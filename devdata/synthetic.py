"""Realistic synthetic articles for benchmarks and tests (``manage.py seed_synthetic``).

``SyntheticArticleFactory`` only *builds* articles (factory-boy's build strategy); the
command inserts them with ``bulk_create``, which skips ``Article.save()``. Rendering
Markdown per article would dominate a run of 100,000, so a pool of bodies is rendered
once with the site's own renderer and shared; each article's product name is written
into its copy afterwards (product names hold no character that Markdown or HTML would
treat specially).

Randomness comes from ``factory.random.randgen``: ``factory.random.reseed_random(seed)``
makes a run repeatable.
"""

import bisect
import itertools
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import factory
from django.utils import timezone
from factory.random import randgen as rng

from news.models import Article, Source
from news.rendering import html_to_text, render_markdown

# Stands for the article's product in the pooled bodies; letters only, so Markdown and
# the sanitiser leave it alone.
PRODUCT_MARK = "Qzproductzq"
YEARS_OF_ARCHIVE = 8
# Zipf exponent for tag and product popularity: a few very common, a long tail.
ZIPF_EXPONENT = 1.0
# A word every pooled body contains: benchmarks search for it.
COMMON_WORD = "release"

# Ordered roughly by how much a tech newsroom writes about them.
PRODUCTS = [
    "Python", "Linux", "Kubernetes", "PostgreSQL", "Rust", "Chromium", "Firefox", "Go",
    "Node.js", "Django", "TypeScript", "React", "Docker", "Android", "Debian", "Ubuntu",
    "PyTorch", "Java", "OpenSSL", "Git", "Kotlin", "Swift", "LLVM", "GCC", "SQLite",
    "Redis", "nginx", "Terraform", "Fedora", "NumPy", "pandas", "FreeBSD", "systemd",
    "curl", "GNOME", "KDE Plasma", "Wayland", "Mesa", "QEMU", "Deno", "Bun", "Vue",
    "Svelte", "Angular", "Ruby", "Rails", "PHP", "Laravel", "Elixir", "Erlang", "Zig",
    "Julia", "Scala", "Apache Spark", "Apache Kafka", "MySQL", "MariaDB", "MongoDB",
    "Elasticsearch", "OpenSearch", "ClickHouse", "DuckDB", "CockroachDB", "TimescaleDB",
    "Grafana", "Prometheus", "OpenTelemetry", "Envoy", "Istio", "Cilium", "etcd",
    "Helm", "Argo CD", "Podman", "containerd", "Ansible", "OpenTofu", "Vault", "Consul",
    "WebAssembly", "Wasmtime", "Flutter", "Electron", "Qt", "Blender", "LibreOffice",
    "Neovim", "Vim", "Emacs", "VS Code", "JupyterLab", "scikit-learn", "TensorFlow",
    "JAX", "ONNX Runtime", "CUDA", "ROCm", "Ceph", "OpenZFS", "Btrfs", "HAProxy",
    "Caddy", "Apache Airflow", "dbt", "Celery", "FastAPI", "Flask", "Spring Boot",
    "Quarkus", "Gradle", "Maven", "npm", "pip", "Poetry", "Homebrew", "Nix", "Alpine",
    "Arch Linux", "openSUSE", "Raspberry Pi OS", "OpenBSD", "NetBSD", "Xen", "Proxmox",
    "OpenStack", "Nextcloud", "Matrix", "Mastodon", "Thunderbird", "GIMP", "Inkscape",
]  # fmt: skip
THEMES = [
    "release", "security", "open source", "performance", "databases", "programming",
    "cloud", "machine learning", "devops", "web", "operating systems", "developer tools",
    "networking", "storage", "containers", "observability", "compilers", "browsers",
    "mobile", "desktop", "licensing", "governance", "privacy", "accessibility",
    "hardware", "embedded", "data engineering", "testing", "packaging", "standards",
]  # fmt: skip
FACETS = [
    "security", "performance", "packaging", "tooling", "community", "internals",
    "migration", "benchmarks", "governance", "licensing", "ecosystem", "testing",
    "deployment", "accessibility", "observability", "networking", "storage", "ux",
    "documentation", "roadmap", "funding", "compatibility", "api", "plugins", "cli",
    "configuration", "scheduling", "memory", "concurrency", "localization", "arm64",
    "risc-v", "windows", "macos", "webassembly", "ci",
]  # fmt: skip
FEATURES = [
    "faster startup", "a new JIT compiler", "improved type inference", "HTTP/3 support",
    "a rewritten scheduler", "native ARM64 builds", "incremental garbage collection",
    "parallel query execution", "structured logging", "a stable plugin API",
    "WebGPU support", "memory-safe parsers", "zero-downtime upgrades",
    "logical replication improvements", "a new package resolver", "clearer error messages",
    "asynchronous I/O", "post-quantum key exchange", "SIMD acceleration",
    "smaller container images", "Unicode 16 support", "vector search", "JSON path queries",
    "reproducible builds", "a redesigned settings panel", "hardware video decoding",
    "lazy imports", "pattern matching", "built-in profiling", "TLS 1.3 by default",
    "RISC-V support", "io_uring support", "sandboxed extensions", "incremental builds",
    "a faster test runner", "encrypted backups", "fine-grained permissions",
    "a new query planner", "lower memory use", "an LTS branch",
]  # fmt: skip
COMPONENTS = [
    "query planner", "garbage collector", "package resolver", "scheduler", "TLS stack",
    "build system", "compiler", "runtime", "type checker", "networking stack",
    "storage engine", "test runner", "debugger", "standard library", "driver layer",
    "web interface", "command-line tool", "API server", "replication code", "installer",
]  # fmt: skip
PLATFORMS = ["Linux", "Windows", "macOS", "FreeBSD", "ARM64 servers", "RISC-V boards"]
WORKLOADS = [
    "web serving", "analytical queries", "container start-up", "large builds",
    "model training", "cold starts", "batch jobs", "small writes", "JSON parsing",
]  # fmt: skip
PUBLISHERS = [
    ("GitHub", "github.com"), ("LWN.net", "lwn.net"), ("Phoronix", "www.phoronix.com"),
    ("The Register", "www.theregister.com"), ("Ars Technica", "arstechnica.com"),
    ("InfoQ", "www.infoq.com"), ("The New Stack", "thenewstack.io"),
    ("Project blog", "blog.example.org"), ("Release notes", "docs.example.org"),
    ("Mailing list", "lists.example.org"), ("Security advisory", "security.example.org"),
]  # fmt: skip
HEADINGS = [
    "What changed", "Performance", "Compatibility", "Security", "Upgrading", "Community",
    "Under the hood", "Tooling", "Platform support", "Deprecations", "Ecosystem",
]  # fmt: skip
P = PRODUCT_MARK
SENTENCES = [
    f"{P} now ships {{feature}}, according to the release notes.",
    f"The {{component}} in {P} gained {{feature}} after a long review.",
    "Maintainers said the change removes a long-standing bottleneck in the {component}.",
    "{n} contributors landed {m} commits since the previous release.",
    "Benchmarks published by the project show {pct}% better throughput on {workload}.",
    f"Users of {P} on {{platform}} should upgrade to pick up fixes in the {{component}}.",
    "The release drops support for older compilers and deprecated configuration keys.",
    f"Packagers can build {P} with `--enable-{{flag}}` to try {{feature}} early.",
    "Early adopters reported that {workload} ran noticeably faster in their tests.",
    "The team plans to make {feature} the default in the next major release.",
    f"Security researchers credited in the advisory found the flaw in {P}'s {{component}}.",
    "Distributions are expected to ship the update within weeks.",
    "The project's governance board approved the roadmap in {month_name}.",
    f"Migration guides explain how to move existing {P} deployments without downtime.",
    "Critics noted that {feature} still lacks documentation for {platform}.",
    "The changelog lists {m} fixes, most of them in the {component}.",
]  # fmt: skip
HEADLINES = [
    "{product} {version} released: {feature} and {feature2}",
    "{product} {version} brings {feature}",
    "{product} {version} ships with {feature}",
    "{product} {version} drops legacy APIs, adds {feature}",
    "Security flaw in {product}'s {component} fixed in {version}",
    "{product} maintainers outline {feature} for {version}",
    "{product} {version}: {feature}, {feature2} and a faster {component}",
]  # fmt: skip
SOURCE_TITLES = [
    "{product} {version} release notes", "Announcing {product} {version}",
    "{product} {version}: {feature} explained", "What's new in the {product} {component}",
]  # fmt: skip
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
]  # fmt: skip


def zipf_cumulative(count, exponent=ZIPF_EXPONENT):
    """Cumulative Zipf weights for ranks 1..count, for ``random.choices(cum_weights=)``."""
    return list(itertools.accumulate(1 / rank**exponent for rank in range(1, count + 1)))


def zipf_pick(items, cumulative):
    return items[bisect.bisect(cumulative, rng.random() * cumulative[-1])]


PRODUCT_WEIGHTS = zipf_cumulative(len(PRODUCTS))


class _Draws(dict):
    """Template slots drawn at random on first use (drawing every slot for every
    sentence doubled the time to build 100,000 articles)."""

    choices = {
        "feature": FEATURES,
        "feature2": FEATURES,
        "component": COMPONENTS,
        "platform": PLATFORMS,
        "workload": WORKLOADS,
        "flag": ["jit", "simd", "lto", "io-uring", "experimental"],
        "month_name": MONTHS,
    }
    ranges = {"n": (40, 900), "m": (300, 6000), "pct": (3, 45)}

    def __missing__(self, slot):
        if slot in self.ranges:
            return rng.randint(*self.ranges[slot])
        return rng.choice(self.choices[slot])


def fill(template, **known):
    """A template with its slots filled: ``known`` values, the rest drawn at random."""
    return template.format_map(_Draws(known))


def headline(product, version):
    text = fill(rng.choice(HEADLINES), product=product, version=version)
    return text[0].upper() + text[1:]


def paragraph(sentences):
    return " ".join(fill(rng.choice(SENTENCES)) for _ in range(sentences))


def markdown_body():
    """A Markdown body of a few sections, 250-800 words, mentioning PRODUCT_MARK."""
    target = rng.randint(250, 800)
    blocks = [
        "## What happened",
        f"A new {P} {COMMON_WORD} came out this week, the project said in its "
        f"announcement. {paragraph(3)}",
    ]
    headings = rng.sample(HEADINGS, len(HEADINGS))
    while len(" ".join(blocks).split()) < target - 60:
        blocks.append(f"## {headings.pop() if headings else 'More changes'}")
        blocks.append(paragraph(rng.randint(2, 5)))
        extra = rng.random()
        if extra < 0.25:
            blocks.append("\n".join(f"- {fill('{feature}').capitalize()}" for _ in range(3)))
        elif extra < 0.35:
            blocks.append("```sh\n" + f"pip install --upgrade example-{rng.randint(1, 99)}\n```")
        elif extra < 0.45:
            blocks.append(
                f"See [the {COMMON_WORD} notes](https://docs.example.org/notes/"
                f"{rng.randint(1, 9999)}) for the full list."
            )
    blocks += ["## Why it mattered", paragraph(rng.randint(2, 4))]
    return "\n\n".join(blocks) + "\n"


@dataclass(frozen=True)
class Body:
    markdown: str
    html: str
    text: str

    def about(self, product):
        """This body with the product's name written in."""

        def write_in(text):
            return text.replace(PRODUCT_MARK, product)

        return Body(write_in(self.markdown), write_in(self.html), write_in(self.text))


def body_pool(size):
    """``size`` bodies rendered once by the site's own renderer."""
    bodies = []
    for _ in range(size):
        markdown = markdown_body()
        html = render_markdown(markdown)
        bodies.append(Body(markdown, html, html_to_text(html)))
    return bodies


def tag_names(count):
    """``count`` distinct lowercase tag names, most general first (the Zipf head)."""
    bases = [*THEMES, *(product.lower() for product in PRODUCTS)]
    names = itertools.chain(
        bases,
        (f"{base} {facet}" for facet in FACETS for base in bases if base != facet),
        (f"topic {n}" for n in itertools.count(1)),
    )
    unique = dict.fromkeys(itertools.islice(names, count * 2))
    return list(itertools.islice(unique, count))


def url_words(title):
    # Titles are ASCII: a plain pattern is many times cheaper than slug_from_title().
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def unique_slug(base, taken):
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def day_in_archive(today):
    """An event date in the last YEARS_OF_ARCHIVE years, denser towards today (a newsroom
    writes more each year, and the news sitemap needs articles from the last two days)."""
    return today - timedelta(days=int(365 * YEARS_OF_ARCHIVE * rng.random() ** 1.5))


def midnight(day):
    return timezone.make_aware(datetime.combine(day, time()))


def first_of_month_between(start, end):
    months = (end.year - start.year) * 12 + end.month - start.month
    index = start.year * 12 + start.month - 1 + rng.randint(0, max(months, 0))
    return date(index // 12, index % 12 + 1, 1)


def pick_kind():
    """3% drafts, 1% scheduled, 30% backdated to the event date, the rest published later."""
    roll = rng.random()
    if roll < 0.03:
        return "draft"
    if roll < 0.04:
        return "scheduled"
    return "backdated" if roll < 0.34 else "published"


def event_date_for(kind):
    today = timezone.localdate()
    if kind in {"draft", "scheduled"}:
        return today - timedelta(days=rng.randint(0, 3))
    return day_in_archive(today)


def published_at_for(kind, event_date):
    now = timezone.now()
    if kind == "scheduled":
        return now + timedelta(hours=rng.randint(1, 24 * 14))
    if kind == "backdated":
        return min(midnight(event_date), now)
    # From the next day on: a same-day date would read as backdated in the footer.
    later = midnight(event_date) + timedelta(minutes=rng.randint(24 * 60, 4 * 24 * 60))
    # Never in the future (that would schedule it), never before the event's day.
    return max(midnight(event_date), min(later, now - timedelta(minutes=rng.randint(1, 120))))


class SyntheticArticleFactory(factory.django.DjangoModelFactory):
    """Build with ``pooled=`` a ``Body`` from ``body_pool()``; slug and search_extra are
    left to the caller (they depend on other rows)."""

    class Meta:
        model = Article

    class Params:
        pooled = None
        product = factory.LazyFunction(lambda: zipf_pick(PRODUCTS, PRODUCT_WEIGHTS))
        version = factory.LazyFunction(lambda: f"{rng.randint(1, 30)}.{rng.randint(0, 12)}")
        kind = factory.LazyFunction(pick_kind)
        written = factory.LazyAttribute(lambda o: o.pooled.about(o.product))

    title = factory.LazyAttribute(lambda o: headline(o.product, o.version))
    summary = factory.LazyAttribute(
        lambda o: fill(
            "{product} {version} adds {feature} and {feature2}; "
            "maintainers say the {component} is the main beneficiary.",
            product=o.product,
            version=o.version,
        )
    )
    body = factory.SelfAttribute("written.markdown")
    body_html = factory.SelfAttribute("written.html")
    body_text = factory.SelfAttribute("written.text")
    status = factory.LazyAttribute(
        lambda o: Article.Status.DRAFT if o.kind == "draft" else Article.Status.PUBLISHED
    )
    event_date = factory.LazyAttribute(lambda o: event_date_for(o.kind))
    published_at = factory.LazyAttribute(lambda o: published_at_for(o.kind, o.event_date))
    facts_verified = factory.LazyAttribute(
        lambda o: first_of_month_between(
            min(timezone.localdate(o.published_at), timezone.localdate()),
            timezone.localdate(),
        )
    )


def build_sources(article, product, version):
    """1-4 sources backing ``article``.

    Plain constructors rather than a factory: factory-boy resolves each instance's
    declarations for each instance, and sources outnumber articles 2.5 to 1, which made
    them a third of a 100,000-article run.
    """
    sources = []
    for position in range(rng.randint(1, 4)):
        publisher, host = rng.choice(PUBLISHERS)
        title = fill(rng.choice(SOURCE_TITLES), product=product, version=version)
        # Some sources are mailing-list posts or print interviews, with no address.
        url = (
            ""
            if rng.random() < 0.15
            else f"https://{host}/{url_words(title)}-{rng.randint(1, 9999)}"
        )
        sources.append(
            Source(article=article, position=position, title=title, publisher=publisher, url=url)
        )
    return sources
