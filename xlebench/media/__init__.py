"""Video media: locating ffmpeg, probing files, generating synthetic media, resolving uids."""
