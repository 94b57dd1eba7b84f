"""The training page names each model's loss and labels in words, not by the objective keys of the library."""

from pluralign.cross import training as q4
from pluralign.cross.pages import training_page


def test_every_model_loss_and_labels_have_a_display_name():
    for objective, labels in q4.MODELS.values():
        name, shown = training_page.OBJECTIVE_NAMES[objective], training_page.LABEL_NAMES[labels]
        assert name != objective and " " in name + shown and "_" not in name + shown
