"""A Tk app for uidrive's visual targets: Tk shows assistive technology
nothing, so its button is found by the text it shows (OCR) or its picture.
Pressing the button counts the presses in the label below it."""

import sys
import tkinter as tk

root = tk.Tk()
root.title("Tk press")
# A size may be given (`1280x1024`), as the OCR benchmark does.
root.geometry(sys.argv[1] if len(sys.argv) > 1 else "360x220+40+40")
count = 0
label = tk.Label(root, text="Not pressed", font=("DejaVu Sans", 14))


def press() -> None:
    global count
    count += 1
    label.config(text=f"Pressed {count}")


def later() -> None:
    # A change that comes on its own, after the click: what `wait --changed` waits for.
    root.after(1500, lambda: label.config(text="Done later"))


button = tk.Button(root, text="Press me", font=("DejaVu Sans", 14), command=press)
button.pack(pady=16)
label.pack(pady=8)
tk.Button(root, text="Change later", font=("DejaVu Sans", 14), command=later).pack(pady=8)
root.mainloop()
