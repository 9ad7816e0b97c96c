"""VidSitu: verbs, semantic roles and event relations of event windows."""
