class Cart {
  constructor() {
    this.items = [];
  }

  add(name, price, quantity = 1) {
    this.items.push({ name, price, quantity });
    return this;
  }

  total() {
    return this.items.reduce((sum, item) => sum + item.price, 0);
  }

  remove(name) {
    const index = this.items.findIndex((item) => item.name === name);
    if (index === -1) {
      throw new Error(`no item named ${name}`);
    }
    this.items.splice(index, 1);
  }

  summary() {
    return { count: this.items.length, names: this.items.map((i) => i.name) };
  }
}

function total(cart) {
  return cart.total();
}

export { Cart, total };
