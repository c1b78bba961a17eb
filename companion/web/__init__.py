"""The phone page: a Flask app (pages, JSON API, Server-Sent Events, health) served by aiohttp in the companion's
own process. See docs/web.md for the page, the API, the stream's event ids and the table token."""
