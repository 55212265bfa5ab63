"""BibTeX of the papers robust-bench implements, shared by builders, metrics and cards."""

HEWITT_MANNING_2019 = """\
@inproceedings{hewitt-manning-2019-structural,
    title = "A Structural Probe for Finding Syntax in Word Representations",
    author = "Hewitt, John and Manning, Christopher D.",
    booktitle = "Proceedings of NAACL-HLT 2019",
    year = "2019",
    pages = "4129--4138",
    url = "https://aclanthology.org/N19-1419",
}
"""

YIN_2020 = """\
@inproceedings{yin-etal-2020-robustness,
    title = "On the Robustness of Language Encoders against Grammatical Errors",
    author = "Yin, Fan and Long, Quanyu and Meng, Tao and Chang, Kai-Wei",
    booktitle = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics",
    year = "2020",
    pages = "3386--3403",
    url = "https://aclanthology.org/2020.acl-main.310",
}
"""

LI_2020 = """\
@inproceedings{li-etal-2020-linguistically,
    title = "Linguistically-Informed Transformations ({LIT}): A Method for Automatically Generating Contrast Sets",
    author = "Li, Chuanrong and Shengshuo, Lin and Liu, Zeyu and Wu, Xinyi and Zhou, Xuhui and Steinert-Threlkeld, Shane",
    booktitle = "Proceedings of the Third BlackboxNLP Workshop on Analyzing and Interpreting Neural Networks for NLP",
    year = "2020",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2020.blackboxnlp-1.12",
    pages = "126--135",
}
"""

#: Jabberwocky EWT: the paper, the treebank (UD English EWT) and the pseudoword generator (Wuggy).
HALL_MAUDSLAY_COTTERELL_2021 = """\
@inproceedings{hall-maudslay-cotterell-2021-syntactic,
    title = "Do Syntactic Probes Probe Syntax? Experiments with Jabberwocky Probing",
    author = "Hall Maudslay, Rowan and Cotterell, Ryan",
    booktitle = "Proceedings of the 2021 Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies",
    year = "2021",
    pages = "124--131",
    url = "https://aclanthology.org/2021.naacl-main.11",
}
@inproceedings{silveira-etal-2014-gold,
    title = "A Gold Standard Dependency Corpus for {E}nglish",
    author = "Silveira, Natalia and Dozat, Timothy and de Marneffe, Marie-Catherine and Bowman, Samuel and Connor, Miriam and Bauer, John and Manning, Chris",
    booktitle = "Proceedings of LREC 2014",
    year = "2014",
}
@article{keuleers-brysbaert-2010-wuggy,
    title = "Wuggy: A multilingual pseudoword generator",
    author = "Keuleers, Emmanuel and Brysbaert, Marc",
    journal = "Behavior Research Methods",
    volume = "42", number = "3", pages = "627--633", year = "2010",
}
"""

BALASUBRAMANIAN_2020 = """\
@inproceedings{balasubramanian-etal-2020-whats,
    title = "What{'}s in a Name? Are {BERT} Named Entity Representations just as Good for any other Name?",
    author = "Balasubramanian, Sriram and Jain, Naman and Jindal, Gaurav and Awasthi, Abhijeet and Sarawagi, Sunita",
    booktitle = "Proceedings of the 5th Workshop on Representation Learning for NLP",
    year = "2020",
    pages = "205--214",
    url = "https://aclanthology.org/2020.repl4nlp-1.24",
}
"""

WANG_2021 = """\
@inproceedings{wang-etal-2021-closer,
    title = "A Closer Look into the Robustness of Neural Dependency Parsers Using Better Adversarial Examples",
    author = "Wang, Yuxuan and Che, Wanxiang and Titov, Ivan and Cohen, Shay B. and Lei, Zhilin and Liu, Ting",
    booktitle = "Findings of the Association for Computational Linguistics: ACL-IJCNLP 2021",
    year = "2021",
    pages = "2344--2354",
    url = "https://aclanthology.org/2021.findings-acl.207",
}
"""
