"""The API's browsable docs (Swagger UI) work under the site's strict CSP."""

from playwright.sync_api import expect


def test_the_api_docs_render_every_endpoint_with_no_csp_violation(new_page, live_server, db):
    page = new_page()
    messages = []
    page.on("console", lambda message: messages.append(message.text))
    page.goto(live_server.url + "/api/v1/docs/")
    expect(page.locator(".opblock")).to_have_count(6)
    expect(page.locator(".title").first).to_contain_text("Skillo content API")
    assert [text for text in messages if "Content Security Policy" in text] == []
