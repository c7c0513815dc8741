from .topics import main_topics


def navigation(request):
    # A callable: templates evaluate it only where the header is rendered.
    return {"main_tags": main_topics}
