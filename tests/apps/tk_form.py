#!/usr/bin/env python3
"""A Tk window (Tk has no accessibility): a button and a field; the title
changes when the button is pressed, so real input can be seen to land."""
import tkinter as tk

root = tk.Tk()
root.title("Tk form")
entry = tk.Entry(root, width=20)
entry.pack(padx=8, pady=8)
entry.focus_set()


def pressed(_event=None):
    root.title("Tk form: " + entry.get())


tk.Button(root, text="Press", command=pressed).pack(padx=8, pady=8)
root.bind("<Return>", pressed)
root.mainloop()
