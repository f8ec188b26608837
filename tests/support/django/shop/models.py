"""A tiny shop: foreign keys, unique_together, DecimalField, auto_now, JSONField, BinaryField,
indexes."""

from django.db import models


class Customer(models.Model):
    email = models.EmailField(unique=True)
    name = models.CharField(max_length=80)
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["name"], name="customer_name_idx")]


class Product(models.Model):
    sku = models.CharField(max_length=20)
    shelf = models.PositiveSmallIntegerField(default=1)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    stock = models.IntegerField(default=0)
    attributes = models.JSONField(default=dict)
    picture = models.BinaryField(null=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        unique_together = [("sku", "shelf")]
        indexes = [models.Index(fields=["price", "-stock"], name="product_price_stock_idx")]


class Order(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="orders")
    placed = models.DateTimeField(auto_now_add=True)
    note = models.TextField(blank=True)
    paid = models.BooleanField(default=False)


class Line(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(Product, on_delete=models.PROTECT)
    quantity = models.PositiveIntegerField()
    unit_price = models.DecimalField(max_digits=10, decimal_places=2)

    class Meta:
        unique_together = [("order", "product")]
