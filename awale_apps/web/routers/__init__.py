"""The routes of the web app, one router per concern: :mod:`.games` (the games API), :mod:`.config` (what the page
offers, every game's page data included) and :mod:`.static` (the page itself)."""
