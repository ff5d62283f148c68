"""The build, stage by stage (load → resolve → stamp charts → check → emit → settle → write), and
the incremental seam around it."""
