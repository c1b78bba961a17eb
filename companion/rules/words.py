"""English for the rules' announcements: the indefinite article and counted nouns, shared by every game's text.

>>> a("agent"), a("engineer"), a("unit"), a("HQ slot")
('an agent', 'an engineer', 'a unit', 'an HQ slot')
>>> plural(1, "credit"), plural(2, "credit"), plural(3, "hex"), plural(0, "factory")
('1 credit', '2 credits', '3 hexes', '0 factories')
>>> plural(2, "victory point"), plural(2, "research data")
('2 victory points', '2 research data')
>>> verdict("won", ("blue",), "Red's ship with Dakalio on d7 is blocked")
"Blue wins: Red's ship with Dakalio on d7 is blocked."
>>> verdict("lost", (), "the home planet is infested")
'Everyone loses: the home planet is infested.'
"""

from __future__ import annotations

# Words that start with a vowel letter but a consonant sound ("a unit", "a one-way"), and the reverse ("an hour").
_CONSONANT_SOUND = ("uni", "use", "usu", "uti", "eu", "one", "once")
_VOWEL_SOUND = ("hour", "honest", "heir")
# Letters whose names start with a vowel sound, for initialisms read letter by letter ("an HQ", "an X-wing").
_VOWEL_LETTERS = set("AEFHILMNORSX")
# Nouns that count without an -s: mass nouns and those the games use as their own plural.
_SAME_PLURAL = {
    "data",
    "research data",
    "fuel",
    "metal",
    "helium",
    "ice",
    "provisions",
    "marines",
    "militia",
    "armor",
    "artillery",
    "mechanized infantry",
    "energy",
    "ore",
}


def a(noun: str) -> str:
    """The noun with its indefinite article, by the sound it starts with."""
    return f"{article(noun)} {noun}"


def article(noun: str) -> str:
    word = noun.split(" ")[0]
    if len(word) > 1 and word.isupper():
        return "an" if word[0] in _VOWEL_LETTERS else "a"
    low = word.lower()
    if low.startswith(_VOWEL_SOUND):
        return "an"
    if low[:1] in "aeiou" and not low.startswith(_CONSONANT_SOUND):
        return "an"
    return "a"


def plural(n: int, noun: str, many: str | None = None) -> str:
    """ "1 credit", "2 credits": the count and the noun in the number it takes (`many` for an irregular plural)."""
    return f"{n} {noun if n == 1 else (many or plural_of(noun))}"


def plural_of(noun: str) -> str:
    if noun in _SAME_PLURAL:
        return noun
    head, _, last = noun.rpartition(" ")
    if last.endswith(("s", "x", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def verdict(result: str, winners: tuple[str, ...] | list[str], reason: str) -> str:
    """The end of a game in one sentence: who won (or that everyone lost, or a draw) and why."""
    names = [w[:1].upper() + w[1:] for w in winners]
    if result == "won" and names:
        lead = f"{' and '.join(names)} {'win' if len(names) > 1 else 'wins'}"
    elif result == "drawn":
        lead = "A draw"
    else:
        lead = "Everyone loses" if not names else f"{' and '.join(names)} {'lose' if len(names) > 1 else 'loses'}"
    why = reason.strip().rstrip(".")
    if why.lower().startswith(lead.lower()):  # the reason already says it ("Green wins with 12 victory points")
        return f"{why[:1].upper()}{why[1:]}."
    return f"{lead}: {why}." if why else f"{lead}."
