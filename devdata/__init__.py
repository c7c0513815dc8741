"""Development and benchmark data: synthetic articles (``manage.py seed_synthetic``).

Not part of the site: installed only where factory-boy is (``pip install -e '.[dev]'``),
and never in production settings.
"""
