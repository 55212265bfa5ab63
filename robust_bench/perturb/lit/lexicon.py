"""Word lists of the LIT UD backend (Li et al., 2020): the verb group's auxiliaries and the lexical
classes the analysis and the transformations test words against."""

_MODALS = {"will": "will", "'ll": "will", "wo": "will", "shall": "shall", "would": "would", "'d": None,
           "should": "should", "can": "can", "ca": "can", "could": "could", "may": "may", "might": "might",
           "must": "must"}
_BE = {"am": "VBP", "'m": "VBP", "is": "VBZ", "'s": "VBZ", "are": "VBP", "'re": "VBP", "was": "VBD",
       "were": "VBD", "be": "VB", "been": "VBN", "being": "VBG"}
_HAVE = {"have": "VBP", "'ve": "VBP", "has": "VBZ", "had": "VBD", "having": "VBG"}
_DO = {"do": "VBP", "does": "VBZ", "did": "VBD"}
_NEG = {"not", "n't"}
#: Derivational suffixes of common nouns, for capitalised words WordNet does not know.
_COMMON_NOUN_SUFFIXES = ("ness", "ity", "tion", "sion", "ment", "ism", "ance", "ence", "ship", "hood", "ality")
#: Tokens that may not occur inside a clefted subject.
_CLEFT_BREAKERS = {",", ";", ":", "--", "\"", "``", "''", "(", ")", "-LRB-", "-RRB-"}
#: Adverbs that take the medial position of a verb group (after the first auxiliary or a finite *be*).
_MEDIAL_ADVERBS = {"probably", "also", "always", "never", "often", "still", "now", "really", "certainly",
                   "definitely", "usually", "just", "already", "clearly", "obviously", "surely", "sometimes",
                   "generally", "actually", "indeed", "mostly", "typically", "likely", "possibly", "perhaps",
                   "rarely", "seldom", "frequently", "normally", "currently", "apparently", "undoubtedly", "even"}
#: Subject pronouns -> (person, number); *you* takes plural verb forms.
_PRONOUN_AGR = {"i": (1, "sg"), "you": (2, "pl"), "he": (3, "sg"), "she": (3, "sg"), "it": (3, "sg"),
                "we": (1, "pl"), "they": (3, "pl"), "this": (3, "sg"), "that": (3, "sg"), "these": (3, "pl"),
                "those": (3, "pl")}
_TO_ACC = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them", "who": "whom"}
_TO_NOM = {v: k for k, v in _TO_ACC.items()}
_REFLEXIVE = {"myself", "yourself", "himself", "herself", "itself", "ourselves", "yourselves", "themselves", "eachother",
              "oneself", "each", "other", "one another"}
#: Quantified and negative subjects: clefting and negating them changes scope, not just focus/polarity.
_QUANTIFIER_WORDS = {"every", "each", "all", "no", "none", "some", "any", "most", "many", "few", "several",
                     "both", "either", "neither", "everyone", "everybody", "everything", "someone", "somebody",
                     "something", "anyone", "anybody", "anything", "nobody", "nothing", "noone", "only"}
#: Verbs without a passive (middle and measure verbs, possession).
#: Negative words (adding *not* would make a double negative) and negative polarity items
#: (removing *not* would strand them: *I saw anything*).
_NEGATIVE_WORDS = {"no", "not", "n't", "nothing", "nobody", "none", "never", "neither", "nor", "nowhere", "noone",
                   "hardly", "barely", "scarcely"}
_NPIS = {"any", "anything", "anyone", "anybody", "anywhere", "ever", "yet", "either", "at all"}
_NO_PASSIVE = {"have", "lack", "resemble", "cost", "weigh", "last", "become", "get", "fit", "suit", "mean",
               "equal", "seem", "appear", "be", "contain", "hold", "involve", "include", "matter", "take",
               # stative and psych verbs whose passive no speaker uses with an ordinary agent
               # ("A cracker is wanted by you", "That was liked by me")
               "want", "like", "love", "hate", "prefer", "need", "wish", "deserve", "suffer",
               # "an innocuous history was enjoyed by", "A jumping kick is done by a child"
               "enjoy", "do"}
# what a speaker knows of their own mind: "I may love poetry", "I may look forward to ..." are no hedges
_FIRST_PERSON_STATES = {"love", "like", "hate", "enjoy", "prefer", "want", "wish", "hope", "need", "look", "care",
                        "appreciate", "miss", "adore", "dislike", "fear", "intend", "plan", "mean", "feel"}
#: Light-verb idioms (verb lemma -> object noun lemmas): the noun is not a participant, so the
#: passive and the swap break the idiom ("A face was made by him").
_IDIOMS = {"make": {"face", "sense", "difference", "living", "way", "fun", "love", "friend", "peace", "sure", "point",
                    "mind", "move", "deal", "effort", "use", "page", "headline", "news"},
           "take": {"place", "part", "care", "advantage", "look", "time", "turn", "step", "chance", "break", "seat",
                    "note", "notice", "charge", "hold", "shape", "effect", "action", "aim", "breath", "risk"},
           "pay": {"attention", "visit", "tribute", "heed", "price"},
           "give": {"way", "rise", "birth", "hand", "try", "shot", "thought", "chase", "damn", "credit"},
           "have": {"fun", "time", "look"}, "catch": {"breath", "eye", "sight"},
           "lose": {"temper", "mind", "way", "track", "sight", "touch", "heart", "face"},
           "keep": {"track", "touch", "eye", "pace", "mind", "word", "cool"}, "hold": {"breath", "tongue"},
           "shake": {"head", "hand"}, "nod": {"head"}, "raise": {"eyebrow"}, "roll": {"eye"},
           "do": {"job", "trick", "best", "thing"}, "run": {"risk"}, "bear": {"mind"}, "lend": {"hand"},
           "close": {"door"}, "open": {"door"}, "bat": {"eye", "eyelid"}, "lead": {"way"},
           "let": {"yell", "cry", "scream", "sigh", "breath", "laugh", "groan", "shout", "gasp", "whistle"}}
#: Verbs of belief, perception and feeling that, with a first-person subject in the present, are
#: hedges or performatives ("I guess", "I hope", "I see"): a tense or modal on them is not
#: English ("I may guess I read ...", "I will hope ...").
_ATTITUDE_VERBS = {"guess", "think", "know", "see", "hope", "suspect", "believe", "suppose", "mean", "bet", "wonder",
                   "feel", "understand", "assume", "reckon", "imagine", "doubt", "expect", "agree", "admit",
                   "promise", "swear", "wish", "say", "tell", "fear", "trust", "presume", "gather", "figure",
                   "realize", "realise", "thank", "apologize", "apologise", "recommend", "suggest", "insist",
                   "regret", "confess", "mind", "declare", "note", "add", "remember", "forget"}
#: Adjectives of the same performative frames ("I am happy to report", "We are pleased to tell you").
_ATTITUDE_ADJECTIVES = {"happy", "pleased", "glad", "sorry", "sure", "certain", "afraid", "delighted", "proud",
                        "honored", "honoured", "excited", "thrilled", "grateful", "thankful", "confident", "aware",
                        "convinced", "positive", "delight", "surprised", "amazed", "shocked", "disappointed",
                        "worried", "concerned", "curious"}
#: Epistemic adverbs: *may* beside them stacks two modalities ("may probably never be").
_EPISTEMIC_ADVERBS = {"probably", "possibly", "perhaps", "maybe", "likely", "certainly", "surely", "definitely",
                      "undoubtedly", "apparently", "presumably", "doubtless", "obviously", "clearly", "evidently",
                      "supposedly", "allegedly", "necessarily", "conceivably"}
#: Verbs of saying: after reported speech ("' Not entirely , ' I snapped") they are a reporting tag,
#: which takes no modal, and with *may* in the present they read as permission ("Time may claim").
# heads of specificational subjects ("The whole point is speed"): no cleft focus
_DISCOURSE_MARKERS = {"yeah", "yes", "no", "well", "oh", "so", "now", "um", "uh", "um-hum", "uh-huh", "okay", "ok",
                      "right", "anyway", "like", "and", "but", "plus", "hey", "ah", "sir", "please"}
_FLOATING_QUANTIFIERS = {"both", "all", "each"}
_SPECIFICATIONAL_NOUNS = {"point", "thing", "problem", "question", "issue", "idea", "goal", "aim", "purpose", "reason",
                          "result", "fact", "truth", "answer", "key", "trick", "plan", "solution", "concern", "hope",
                          "rule", "difference", "advantage", "benefit", "danger", "conclusion", "lesson", "message",
                          "objective", "priority", "task", "challenge", "secret", "trouble", "catch", "upshot"}
_SPEECH_VERBS = {"say", "tell", "ask", "reply", "answer", "claim", "state", "report", "announce", "explain", "add",
                 "shout", "whisper", "snap", "cry", "mutter", "murmur", "insist", "note", "write", "respond",
                 "declare", "exclaim", "continue", "agree", "admit", "warn", "argue", "suggest", "observe"}
#: Positive polarity items: adding *not* beside them is not English ("have not already described").
_PPIS = {"already", "still", "some", "somewhat", "rather", "pretty", "fairly", "quite", "too", "also", "only",
         "someone", "something", "somebody", "somewhere"}
#: Additive adverbs: an it-cleft asserts exclusiveness, which they contradict ("It is X that also ...").
_ADDITIVE_ADVERBS = {"also", "too", "either", "likewise", "additionally"}
#: Time adverbials that tie a clause to the speech time (no past, no future) or to the past.
_NOW_WORDS = {"now", "currently", "nowadays", "presently", "today", "tonight", "tomorrow"}
_PAST_WORDS = {"ago", "yesterday", "formerly", "previously", "once"}
#: Temporal subordinators: a clause they introduce shares the main clause's tense ("as they spend").
_TEMPORAL_MARKS = {"as", "when", "while", "whenever", "until", "till", "before", "after", "once", "since"}
#: Irregular participles lemminflect does not give (it gives *born*, the birth sense only).
_VBN_OVERRIDES = {"bear": "borne"}
#: Focus adverbs: passivisation moves their focus ("He only ate X" -> "X was only eaten by him").
_FOCUS_ADVERBS = {"only", "even", "merely", "just", "simply", "solely"}
#: Possessive determiners -> the subject pronouns they can be bound by.
_POSSESSIVE_BINDERS = {"my": {"i"}, "our": {"we"}, "your": {"you"}, "his": {"he"}, "her": {"she"}, "its": {"it"},
                       "their": {"they"}}
#: Human collective nouns WordNet files under groups rather than person.n.01.
_PASSIVE_AGENT_PRONOUNS = {"it", "we", "they", "you", "one", "i"}     # "can not be overemphasized by me"
# prepositions whose phrase after an object more often belongs to the verb ("exchange ideas on
# the website", "announced plans at the meeting"): such an object is not moved into a passive subject
_QUANTITY_ADJECTIVES = {"many", "much", "several", "multiple", "numerous", "enough", "few"}
_VERBAL_PREPOSITIONS = {"on", "at", "during", "before", "after", "since", "until", "through", "throughout",
                        "across", "via", "within", "without", "despite", "from", "into", "onto", "toward", "towards"}
_PERSON_COLLECTIVES = {"people", "folk", "folks", "staff", "crowd", "audience", "public", "family", "team"}
#: Stative verbs: a tense change on them reads as a change of a lasting state or a generic truth
#: ("Penrith and Blencathra will also be Celtic names"; "The book will contain ..."), which makes
#: the p;f / f;p pair incoherent rather than about two events (issue 31, decision 3).
_STATIVE_VERBS = {"contain", "consist", "include", "comprise", "belong", "own", "possess", "resemble", "equal",
                  "mean", "represent", "require", "depend", "exist", "deserve", "cost", "weigh", "measure",
                  "know", "understand", "believe", "seem", "appear", "matter", "involve", "lack", "concern",
                  "constitute", "differ", "remain", "border", "span", "house", "feature", "boast"}
#: Verbs of placement and caused motion, whose place or path after the object a by-phrase would split
#: off ("A roof is being put by a man on a beach house").
_PLACEMENT_VERBS = {"put", "place", "set", "lay", "pour", "throw", "toss", "push", "pull", "move", "bring", "take",
                    "send", "hang", "stick", "insert", "drop", "lift", "carry", "drag", "roll", "kick", "hit", "spray",
                    "splash", "pass", "hand", "load", "spread", "rub", "apply", "lead", "guide", "ride", "drive"}
#: Copular predicates of place and size, lasting properties of things.
_LASTING_PREDICATES = {"away", "far", "near", "close", "located", "situated", "long", "wide", "high", "tall", "deep",
                       "big", "large", "small", "old", "north", "south", "east", "west"}
#: Relations whose subtree is outside the scope of an operator on the main verb group: adverbial
#: clauses (but a purpose infinitive), appositions, parentheticals and discourse, and (in
#: :func:`analyse`) relative and participle clauses set off by a comma: their content stays asserted
#: or presupposed under *may*.
_OUTSIDE_SCOPE = {"advcl", "appos", "parataxis", "discourse", "vocative", "dislocated", "list", "csubj", "reparandum"}
#: Parts of speech whose lemmas carry content, for the scope check of m;o.
_CONTENT_POS = {"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"}
_LIGHT_LEMMAS = {"be", "have", "do", "not", "also", "so", "very", "just", "then", "there", "here", "now", "only",
                 "even", "still", "too", "more", "most", "much", "many"}
#: Relations every UD English parser has and the ClearNLP scheme of spaCy's en_core_web_* lacks.
_UD_RELATIONS = {"obj", "cop", "nsubj:pass", "aux:pass"}
_PERSON_PRONOUNS = {"he", "she", "i", "you", "we", "they", "someone", "somebody", "everyone", "everybody"}
