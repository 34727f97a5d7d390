"""What docs/hooks.py makes during the build: the API pages, the pictures, the results tables."""
