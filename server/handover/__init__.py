"""What deciding and carrying out hand each other, declared apart from both: effects (what
a decision asks to happen), inputs (what carrying out hands back to decide), the ports
where they meet (``Decider``, ``Hands``, ``Owed``), store jobs, what nodes tell each
other (node news) and the moment a decision is stamped with. Plain values and protocols:
nothing here does I/O or decides."""
