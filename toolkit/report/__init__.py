"""The HTML report: figures.py (data -> plotly figures) and render.py (Jinja2 + plotly.js once)."""
