"""The two-tier skill library: one folder per Level-1 skill (``SKILL.md`` + optional ``skill.py``).

``SKILL.md``'s YAML front matter declares the skill (name, description, aliases, Level-2 sub-skills with keywords
and tools); its Markdown body is the prompt template sent to a neural expert. Dropping a folder into a skills path
registers a skill with no code changes elsewhere.
"""
