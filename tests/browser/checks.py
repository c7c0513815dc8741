"""What the browser tests check on any page: that it does not scroll sideways, and
what axe-core finds wrong with it."""


def overflow(page):
    """How many pixels the page is wider than the window (0 or less: none)."""
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def axe_violations(page, axe_source, within=None):
    """axe-core's violations on the page (or in the elements ``within`` selects), each
    as its rule, impact and first targets."""
    page.evaluate(axe_source)
    result = page.evaluate(
        "async (within) => await axe.run(within || document, {resultTypes: ['violations']})",
        within,
    )
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
    ]
