"""An nn.LSTM used as an encoder: only the final hidden state h_n."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.rnn = nn.LSTM(input_size, hidden_size)

    def forward(self, x: torch.Tensor):
        _, (h_n, _) = self.rnn(x)
        return h_n


seq_len = 9
batch_size = 6
input_size = 28
hidden_size = 64
TAIL = {"seq_len": 3, "batch_size": 5, "input_size": 19, "hidden_size": 21}


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
