complete --keep-order --exclusive --command finch --arguments "(COMPLETE=fish finch -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
