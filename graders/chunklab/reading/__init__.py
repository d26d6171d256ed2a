"""Where a submission is read: `.py` files, notebooks, folders of them."""
