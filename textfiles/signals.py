from django.dispatch import Signal

# Sent by load_demo once it has loaded the demo articles, inside its transaction: the
# apps above textfiles add their own demo content (the release desk's projects).
demo_loaded = Signal()
