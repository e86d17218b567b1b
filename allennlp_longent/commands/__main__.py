from allennlp_longent.commands.cli import main

main()
