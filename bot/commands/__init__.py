"""Click commands that live in their own modules; bot/cli.py registers them."""
