"""Chart skill helpers: the data view of a parsed chart and the checks of multiple-choice options against it."""
