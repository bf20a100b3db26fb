"""The static page: the routes that serve the HTML (:mod:`.pages`), its Jinja templates
(``templates/``) and its scripts and style (``static/``)."""
