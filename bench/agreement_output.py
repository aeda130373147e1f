"""The output of bench's agreement scripts (budget_agreement.py, default_agreement.py): the text
tables on stdout, or the markdown there with --markdown -, and the markdown to a file as well."""


def emit(text, markdown, markdown_path):
    if markdown_path == "-":
        print(markdown)
        return
    print(text)
    if markdown_path:
        with open(markdown_path, "w") as f:
            f.write(markdown + "\n")
