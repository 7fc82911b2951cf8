"""Suggestions: papers of a batch a chat may want, ranked by what the chat already reads (pure).

- `terms`: a paper's terms, the stems of its title and abstract, counted.
- `frequencies`: in how many papers each term occurs, kept globally; a term's idf.
- `profile`: a chat's profile, a sparse vector of term weights updated paper by paper.
- `scoring`: a batch ranked against a profile, with a threshold, and why each was suggested.
"""
